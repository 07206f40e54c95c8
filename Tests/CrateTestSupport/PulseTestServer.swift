public import Foundation
import Glibc

/// A private, headless PulseAudio server for tests (the recipe of toolchain.md section 3):
/// its own temp folder and unix socket, one null sink, nothing from the user's session.
/// Make one per test and call `stop()` (deinit does too) so no server outlives the test.
public final class PulseTestServer {
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The address to give libpulse, pactl and parec: "unix:/tmp/crate-pulse-…/native".
    public let server: String
    /// The null sink's name; its monitor source is "\(sink).monitor".
    public let sink = "crate_test"
    /// The server's temp folder (socket, log); recordings may go here, it is removed on stop.
    public let directory: URL
    private var child: ChildProcess?

    /// Starts the server and returns once `pactl info` answers (up to 10 s). `socket`: where it listens (a test
    /// can start crated first, pointed at a server that is not there yet); by default a new temp folder's `native`.
    public init(socket: URL? = nil) throws {
        for tool in ["pulseaudio", "pactl", "parec"] where ChildProcess.find(tool) == nil {
            throw SetupError(description: "\(tool) is not installed: install pulseaudio and pulseaudio-utils (run `make test`, or scripts/install-deps.sh)")
        }
        // A short folder name: unix socket paths are limited to 108 bytes (make test's TMPDIR is short).
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crate-pulse-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = (socket ?? directory.appendingPathComponent("native")).path
        server = "unix:\(socketPath)"
        try start()
    }

    private let socketPath: String

    /// Starts (or starts again, after `kill`) the server on the same socket; returns once `pactl info` answers.
    public func start() throws {
        // `timeout` is a safety net: should the test process die before stop(), the server still ends.
        // It passes the SIGTERM of stop() on to pulseaudio.
        // PULSE_RUNTIME_PATH/PULSE_STATE_PATH keep runtime and state files out of ~/.config/pulse.
        child = try ChildProcess(
            ["timeout", "600", "pulseaudio",
             "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--enable-memfd=no", "--use-pid-file=no",
             "--log-target=file:\(directory.appendingPathComponent("pulse.log").path)",
             "-L", "module-native-protocol-unix socket=\(socketPath) auth-anonymous=1",
             "-L", "module-null-sink sink_name=\(sink) rate=44100 channels=2"],
            extra: ["PULSE_RUNTIME_PATH": directory.path, "PULSE_STATE_PATH": directory.path])
        do {
            try waitUntil("the test PulseAudio server to answer", seconds: 10) {
                if (try? Fixture.run("pactl", ["--server", server, "info"])) != nil { return true }
                if child?.hasExited() ?? true { throw SetupError(description: "pulseaudio exited") }
                return false
            }
        } catch {
            let log = (try? String(contentsOf: directory.appendingPathComponent("pulse.log"), encoding: .utf8)) ?? ""
            stop()
            throw SetupError(description: "the test PulseAudio server did not start (\(error)); its log:\n\(log)")
        }
    }

    /// The server goes away, as a sound server that crashed or was restarted does; its folder stays, so `start()`
    /// brings it back at the same address. (SIGTERM: `timeout` passes it on; a SIGKILL would leave pulseaudio
    /// running without it.)
    public func kill() {
        child?.stop(signal: SIGTERM)
        child = nil
        try? FileManager.default.removeItem(atPath: socketPath)
    }

    deinit {
        stop()
    }

    /// Stops the server by its pid, waits for it, and removes its folder (with any recordings in it).
    public func stop() {
        child?.stop(signal: SIGTERM)
        child = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts recording the sink's monitor as a 16-bit stereo 44.1 kHz WAV (read it with `Fixture.readWAV16`),
    /// and returns once the sink is ready to play without delay.
    ///
    /// The null sink renders in blocks as long as the latency its clients ask for, 2 s when nobody asks,
    /// and only picks up a new latency at the end of the current block. So parec asks for 20 ms, which keeps
    /// the blocks short across stream changes, and this waits until recorded sound reaches the file: the 2 s block
    /// the sink began with is over and it now renders in short ones; otherwise a stream's first writes stall for up
    /// to 2 s.
    public func record(to url: URL) throws -> Recording {
        let recording = Recording(child: try ChildProcess(
            ["parec", "--server=\(server)", "--device=\(sink).monitor", "--latency-msec=20",
             "--format=s16le", "--rate=44100", "--channels=2", "--file-format=wav", url.path]), url: url)
        try waitUntil("parec recording the monitor of \(sink) into \(url.lastPathComponent)", seconds: 20) {
            recording.recordedFrames > 0
        }
        return recording
    }

    /// A running `parec`. `stop()` sends SIGINT, on which parec completes the WAV header and exits.
    public final class Recording {
        public let url: URL
        private var child: ChildProcess?

        init(child: ChildProcess, url: URL) {
            self.child = child
            self.url = url
        }

        deinit {
            stop()
        }

        /// Frames written to the file so far (the WAV header is 44 bytes; 4 bytes a frame).
        public var recordedFrames: Int {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            return max(0, size - 44) / 4
        }

        /// Waits until `frames` more than now have been recorded: what was played has passed the monitor, with that
        /// much after it.
        public func recordMore(frames: Int) throws {
            let target = recordedFrames + frames
            try waitUntil("\(frames) more frames recorded in \(url.lastPathComponent)", seconds: 20) {
                recordedFrames >= target
            }
        }

        public func stop() {
            child?.stop(signal: SIGINT)
            child = nil
        }
    }
}
