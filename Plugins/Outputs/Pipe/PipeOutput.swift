public import CrateDomain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes raw PCM to a command's standard input, as MPD's pipe output does: for a DSP chain, a network sender or a
/// recorder. The command runs through `/bin/sh -c` with `CRATE_RATE`, `CRATE_CHANNELS` and `CRATE_FORMAT` set; a
/// change of rate or channels ends it (its stdin closes) and starts it again with the new values. The command sets
/// the pace: a player such as `aplay` blocks the pipe as it plays.
public struct PipeOutputPlugin: OutputPlugin {
    public enum SampleFormat: String, Sendable {
        case s16le, s32le, f32le

        var conversion: SampleConversion.Format {
            switch self {
            case .s16le: .s16le
            case .s32le: .s32le
            case .f32le: .f32le
            }
        }
    }

    public let name = "pipe"
    public let command: String?
    public let sampleFormat: SampleFormat
    /// A setting that could not be read: the output is unavailable, saying why.
    public let problem: String?

    public init(command: String?, sampleFormat: SampleFormat = .s16le, problem: String? = nil) {
        self.command = command
        self.sampleFormat = sampleFormat
        self.problem = problem
    }

    public func checkStatus() -> PluginStatus {
        if let problem { return .unavailable(reason: problem) }
        guard let command, !command.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .unavailable(reason: "no command: set outputs.pipe.command (e.g. `aplay -q -t raw -f cd`)")
        }
        return .available
    }

    public func makeOutput() throws -> any AudioOutput {
        guard let command, checkStatus() == .available else {
            throw OutputError(output: "pipe", reason: checkStatus().reason ?? "no command")
        }
        return PipeProcess(command: command, sampleFormat: sampleFormat)
    }
}

/// The running command and the write end of its stdin.
public final class PipeProcess: AudioOutput {
    public let command: String
    public let sampleFormat: PipeOutputPlugin.SampleFormat
    public private(set) var format: PCMFormat?
    private var pid: pid_t = 0
    private var fd: Int32 = -1
    private var bytes: [UInt8] = []

    init(command: String, sampleFormat: PipeOutputPlugin.SampleFormat) {
        self.command = command
        self.sampleFormat = sampleFormat
        // A command that exits makes the next write fail with EPIPE: an error to report, not a signal that ends crated.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        close()
    }

    public var destination: String { "pipe to `\(command)` (\(sampleFormat.rawValue))" }

    public func open(_ format: PCMFormat) throws {
        if fd >= 0, format == self.format { return }
        close()
        guard format.channels > 0, format.sampleRate > 0 else { throw OutputError(output: "pipe", reason: "cannot play \(format)") }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw OutputError(output: "pipe", reason: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // Neither end may stay open in the command (or in later children): it would never see the end of its input.
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        var environment = ProcessInfo.processInfo.environment
        environment["CRATE_RATE"] = String(format.sampleRate)
        environment["CRATE_CHANNELS"] = String(format.channels)
        environment["CRATE_FORMAT"] = sampleFormat.rawValue
        let argv = ["/bin/sh", "-c", command]
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let status = withCStrings(argv) { cArgs in
            withCStrings(envp) { cEnv in posix_spawn(&child, "/bin/sh", &actions, nil, cArgs, cEnv) }
        }
        Glibc.close(fds[0])
        guard status == 0 else {
            Glibc.close(fds[1])
            throw OutputError(output: "pipe", reason: "cannot start `\(command)`: \(String(cString: strerror(status)))")
        }
        pid = child
        fd = fds[1]
        self.format = format
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard fd >= 0, let format else { throw OutputError(output: "pipe", reason: "write before open") }
        guard samples.count % format.channels == 0 else {
            throw OutputError(output: "pipe", reason: "write of \(samples.count) samples is not whole \(format.channels)-channel frames")
        }
        SampleConversion.convert(samples, to: sampleFormat.conversion, into: &bytes)
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, base + done, raw.count - done)
                if n >= 0 { done += n; continue }
                if errno == EINTR { continue }
                let reason = errno == EPIPE ? "`\(command)` stopped reading (it exited\(exitText()))" : String(cString: strerror(errno))
                throw OutputError(output: "pipe", reason: reason)
            }
        }
    }

    /// A pipe has nothing to wait for: what was written is the command's.
    public func drain() throws {}

    /// Nothing can be taken back from a pipe; the command stays.
    public func flush() -> Bool { fd >= 0 }

    /// Closes the command's stdin and waits for it to finish what it read.
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        if pid > 0 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        pid = 0
        format = nil
    }

    /// ", status 1" when the command has ended (reaped here), "" while it runs.
    private func exitText() -> String {
        guard pid > 0 else { return "" }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return "" }
        pid = 0
        let code = (status >> 8) & 0xFF
        return (status & 0x7F) == 0 ? ", status \(code)" : ", signal \(status & 0x7F)"
    }

}

/// NULL-terminated C string arrays for posix_spawn, valid inside `body`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return body(pointers)
}
