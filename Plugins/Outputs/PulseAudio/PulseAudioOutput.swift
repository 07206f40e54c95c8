import CPulse
public import CrateDomain
import Foundation

/// Plays through a PulseAudio (or PipeWire-pulse) server with the blocking `pa_simple` API:
/// the playback thread owns the output, so blocking writes are the pacing we want.
public struct PulseAudioOutputPlugin: OutputPlugin {
    public let name = "pulse"
    public var isDevice: Bool { true }
    /// "unix:/run/user/1000/pulse/native", "tcp:host"; nil for libpulse's default lookup.
    public let server: String?
    /// A sink name as in `pactl list sinks short`; nil for the server's default sink.
    public let sink: String?
    public let applicationName: String

    public init(server: String? = nil, sink: String? = nil, applicationName: String = "Crate") {
        self.server = server
        self.sink = sink
        self.applicationName = applicationName
    }

    /// Really connects, opening and freeing a stream, so a missing server or sink shows here
    /// rather than on the first play.
    public func checkStatus() -> PluginStatus {
        do throws(OutputError) {
            let stream = try PulseAudioStream.connect(
                server: server, sink: sink, applicationName: applicationName,
                format: PCMFormat(sampleRate: 44100, channels: 2))
            crate_pa_simple_free(stream)
            return .available
        } catch {
            return .unavailable(reason: error.reason)
        }
    }

    public func makeOutput() throws -> any AudioOutput {
        PulseAudioStream(server: server, sink: sink, applicationName: applicationName)
    }
}

public final class PulseAudioStream: AudioOutput {
    public let server: String?
    public let sink: String?
    public let applicationName: String
    public private(set) var format: PCMFormat?
    private var stream: OpaquePointer?

    public init(server: String?, sink: String?, applicationName: String) {
        self.server = server
        self.sink = sink
        self.applicationName = applicationName
    }

    deinit {
        if let stream { crate_pa_simple_free(stream) }
    }

    public var destination: String {
        "PulseAudio (\(server.map { "server \($0)" } ?? "default server"), \(sink.map { "sink \($0)" } ?? "default sink"))"
    }

    public func open(_ format: PCMFormat) throws {
        if stream != nil, format == self.format { return }
        try Self.check(format)
        if let old = stream {
            // Let the previous track's tail (up to the buffer's ~200 ms) play before the new stream starts.
            var err: Int32 = 0
            _ = crate_pa_simple_drain(old, &err)
            crate_pa_simple_free(old)
            stream = nil
            self.format = nil
        }
        stream = try Self.connect(server: server, sink: sink, applicationName: applicationName, format: format)
        self.format = format
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let stream, let format else {
            throw OutputError(output: "pulse", reason: "write before open")
        }
        guard !samples.isEmpty, let base = samples.baseAddress else { return }
        // PulseAudio rejects writes that are not whole frames.
        guard samples.count % format.channels == 0 else {
            throw OutputError(output: "pulse", reason: "write of \(samples.count) samples is not whole \(format.channels)-channel frames")
        }
        var err: Int32 = 0
        if crate_pa_simple_write(stream, base, samples.count * MemoryLayout<Float>.size, &err) < 0 {
            throw OutputError(output: "pulse", reason: "writing to \(Self.describe(server)) failed: \(Self.text(err)); is the server still running?")
        }
    }

    public func drain() throws {
        guard let stream else { return }
        var err: Int32 = 0
        if crate_pa_simple_drain(stream, &err) < 0 {
            throw OutputError(output: "pulse", reason: "draining on \(Self.describe(server)) failed: \(Self.text(err))")
        }
    }

    /// Keeps the stream (no new connection, no new sink input) and drops what the server still holds for it.
    public func flush() -> Bool {
        guard let stream else { return false }
        var err: Int32 = 0
        return crate_pa_simple_flush(stream, &err) >= 0
    }

    /// Flushes first so stopping is immediate instead of playing out the buffer.
    public func close() {
        guard let stream else { return }
        var err: Int32 = 0
        _ = crate_pa_simple_flush(stream, &err)
        crate_pa_simple_free(stream)
        self.stream = nil
        format = nil
    }

    // MARK: - Connecting

    /// Opens a Float32 playback stream named "Music" with a ~200 ms target buffer: `write` then
    /// blocks at the playback pace, and a flush on stop discards at most that much.
    static func connect(server: String?, sink: String?, applicationName: String,
                        format: PCMFormat) throws(OutputError) -> OpaquePointer {
        try check(format)
        var loadError = [CChar](repeating: 0, count: 512)
        guard crate_pulse_load(&loadError, loadError.count) != 0 else {
            let why = String(decoding: loadError.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw OutputError(output: "pulse", reason: "libpulse-simple cannot be loaded (\(why)); install the libpulse0 package")
        }
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channels))
        let bytesPerSecond = format.sampleRate * format.channels * MemoryLayout<Float>.size
        // (uint32_t)-1 leaves a field to the server.
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(bytesPerSecond / 5),
                                  prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        var err: Int32 = 0
        let stream = crate_pa_simple_new(server, applicationName, PA_STREAM_PLAYBACK, sink, "Music",
                                   &spec, nil, &attr, &err)
        guard let stream else {
            throw OutputError(output: "pulse", reason: reason(for: err, server: server, sink: sink))
        }
        return stream
    }

    static func check(_ format: PCMFormat) throws(OutputError) {
        guard format.sampleRate > 0, format.sampleRate <= Int(PA_RATE_MAX),
              format.channels > 0, format.channels <= Int(PA_CHANNELS_MAX) else {
            throw OutputError(output: "pulse", reason: "PulseAudio cannot play \(format)")
        }
    }

    /// A sentence the user can act on: what was tried, what failed, what to check.
    static func reason(for err: Int32, server: String?, sink: String?) -> String {
        let target = describe(server)
        switch Int(err) {
        case Int(PA_ERR_CONNECTIONREFUSED.rawValue), Int(PA_ERR_INVALIDSERVER.rawValue), Int(PA_ERR_TIMEOUT.rawValue):
            return "no PulseAudio server answers at \(target) (\(text(err))); start PulseAudio or PipeWire-pulse, or set the server address"
        case Int(PA_ERR_NOENTITY.rawValue) where sink != nil:
            return "PulseAudio at \(target) has no sink '\(sink ?? "")' (\(text(err))); `pactl list sinks short` lists the sinks"
        case Int(PA_ERR_ACCESS.rawValue):
            return "PulseAudio at \(target) refused access (\(text(err))); check that this user may connect to it"
        default:
            return "cannot open a stream on PulseAudio at \(target): \(text(err))"
        }
    }

    static func describe(_ server: String?) -> String {
        if let server { return server }
        if let env = ProcessInfo.processInfo.environment["PULSE_SERVER"], !env.isEmpty {
            return "\(env) (from PULSE_SERVER)"
        }
        return "the default server"
    }

    static func text(_ err: Int32) -> String {
        crate_pa_strerror(err).map { String(cString: $0) } ?? "error \(err)"
    }
}
