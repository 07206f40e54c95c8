public import CrateDomain
import COpus
import COgg

/// Placeholder (issue 29, being written): the Ogg Opus stream crated serves at /stream.opus.
public struct StreamOutputPlugin: OutputPlugin {
    public let name = "stream"
    public init() {}
    public func checkStatus() -> PluginStatus { .unavailable(reason: "not written yet") }
    public func makeOutput() throws -> any AudioOutput { throw OutputError(output: name, reason: "not written yet") }
}
