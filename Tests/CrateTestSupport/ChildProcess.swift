public import Foundation
import Glibc

/// A child process started with posix_spawn and a clean signal state. Foundation's `Process` hands
/// the child the spawning thread's signal mask, and test threads block SIGINT and SIGTERM, so a
/// child started that way never sees the SIGINT a user's Ctrl-C would send.
public final class ChildProcess {
    public let pid: pid_t
    private var exitStatus: Int32?

    /// `arguments[0]` is a path or a name looked up in PATH. The environment is `environment` when given,
    /// else this process's without PULSE_SERVER, plus `extra`. Standard output and error go to `output`
    /// (appended) or /dev/null.
    public init(_ arguments: [String], environment: [String: String]? = nil, extra: [String: String] = [:],
                output: URL? = nil) throws {
        guard let tool = arguments.first, let path = tool.contains("/") ? tool : Self.find(tool) else {
            throw Fixture.ToolError(description: "\(arguments.first ?? "?") not found in PATH")
        }
        var env = environment ?? ProcessInfo.processInfo.environment.filter { $0.key != "PULSE_SERVER" }
        env.merge(extra) { $1 }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // Output goes to a file or /dev/null: a pipe nobody reads would stall the child.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let sink = output?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, sink, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: a pipe another test thread has open (ffmpeg's output, say) would
        // otherwise stay open in this long-lived child, and its reader would never see the end.
        // (glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np; Swift's Glibc module does not export it.)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }

        let argv = ([path] + arguments.dropFirst()).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw Fixture.ToolError(description: "cannot start \(tool): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    deinit {
        stop(signal: SIGTERM)
    }

    /// True once the child has ended (and it is reaped).
    public func hasExited() -> Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            // WIFEXITED ? WEXITSTATUS : 128 + signal, as a shell reports it.
            exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        } else if result < 0 && errno == ECHILD {
            exitStatus = -1   // reaped elsewhere: gone as well
        }
        return exitStatus != nil
    }

    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits up to `seconds` for the child to end; its exit status, or nil if it is still running.
    public func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited() && Date() < deadline { usleep(20_000) }
        return exitStatus
    }

    /// Sends `signal` to this pid and waits for it to end.
    public func stop(signal: Int32) {
        guard !hasExited() else { return }
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = -1
    }

    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
