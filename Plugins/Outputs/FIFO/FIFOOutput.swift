public import CrateDomain

/// Placeholder (issue 29, being written): raw PCM into a named pipe for Snapcast.
public struct FIFOOutputPlugin: OutputPlugin {
    public let name = "fifo"
    public init() {}
    public func checkStatus() -> PluginStatus { .unavailable(reason: "not written yet") }
    public func makeOutput() throws -> any AudioOutput { throw OutputError(output: name, reason: "not written yet") }
}
