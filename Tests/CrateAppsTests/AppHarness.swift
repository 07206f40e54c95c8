import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// The suites that run the real binaries. They block a thread while a process runs, so they go
/// one at a time rather than starving the rest of the parallel test run.
@Suite(.serialized) enum AppSuites {}

/// Runs the built `crate` and `crated` executables with a private data directory and config home.
struct AppHarness {
    let home: URL
    var environment: [String: String]

    init() throws {
        home = try Fixture.temporaryDirectory("crate-app")
        environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CRATE_") }
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["CRATE_DATA_DIRECTORY"] = home.appendingPathComponent("data").path
        // Never reach a real sound server from tests unless a test asks for one.
        environment["CRATE_OUTPUTS_PULSE_SERVER"] = "unix:" + home.appendingPathComponent("no-pulse").path
        environment["CRATE_OUTPUTS_WAV_PATH"] = home.appendingPathComponent("out.wav").path
        // The file and null outputs keep real time by default; most tests check what is played, not when.
        environment["CRATE_OUTPUTS_WAV_RENDER"] = "true"
        environment["CRATE_OUTPUTS_NULL_RENDER"] = "true"
        // The MPD front end only where a test asks for it (with a port of its own: 6600 may be MPD's).
        environment["CRATE_MPD_ADDRESS"] = "off"
        // The Subsonic API likewise (4533 may be Navidrome's).
        environment["CRATE_SUBSONIC_ADDRESS"] = "off"
        environment["CRATE_MPRIS_ENABLED"] = "false"
    }

    /// The executables sit beside the test bundle in the build folder.
    static func binary(_ name: String) -> URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for dir in [here, here.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/\(name)")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `crate ARGS...` to completion; `input` is its standard input.
    func crate(_ arguments: String..., env: [String: String] = [:], prefix: [String] = [], input: String? = nil) throws -> Result {
        try crate(arguments: arguments, env: env, prefix: prefix, input: input)
    }

    /// Runs `crate` (`binary`: another copy of it) with `arguments`; `prefix` runs it through another program
    /// (`setpriv` as another user).
    func crate(arguments: [String], env: [String: String] = [:], prefix: [String] = [], input: String? = nil,
               binary: URL? = nil) throws -> Result {
        let binary = (binary ?? Self.binary("crate")).path
        return try runTool(prefix.isEmpty ? binary : "/usr/bin/env", prefix.isEmpty ? arguments : prefix + [binary] + arguments,
                           environment: environment.merging(env) { $1 }, input: input)
    }

    /// A copy of the `crate` binary, with the resource bundles beside it, in a folder of `home` every user may read
    /// and run from: the checkout, and so the build folder, may live where other users cannot go (root's home is
    /// 0700 on Debian).
    func publicCopyOfCrate() throws -> URL {
        let original = Self.binary("crate")
        let folder = home.appendingPathComponent("public-bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = original.deletingLastPathComponent()
        let bundles = try FileManager.default.contentsOfDirectory(atPath: source.path).filter { $0.hasSuffix(".resources") }
        for name in ["crate"] + bundles {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        for folder in [home, folder] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        return folder.appendingPathComponent("crate")
    }

    /// Makes a small library: a 3-track FLAC album, a 2-track MP3 album (`frames` each, 0.5 s by default), and one
    /// broken file.
    func makeMusic(frames: Int = 22050) throws -> URL {
        let music = home.appendingPathComponent("music")
        let flac = music.appendingPathComponent("Band/Record")
        let mp3 = music.appendingPathComponent("Other/Tape")
        for dir in [flac, mp3] { try FileManager.default.createDirectory(at: flac == dir ? flac : mp3, withIntermediateDirectories: true) }
        for n in 1...3 {
            try Fixture.encode(.flac, to: flac.appendingPathComponent("0\(n).flac"), frames: frames,
                               tags: ["title": "Song \(n)", "artist": "Band", "album": "Record", "date": "2001", "track": "\(n)/3"])
        }
        for n in 1...2 {
            try Fixture.encode(.mp3, to: mp3.appendingPathComponent("0\(n).mp3"), frames: frames,
                               tags: ["title": "Side \(n)", "artist": "Other", "album": "Tape", "track": "\(n)"])
        }
        try Data("not audio at all".utf8).write(to: flac.appendingPathComponent("04 broken.flac"))
        return music
    }
}

/// Runs a program to completion with this process's environment (or `environment`); status and both outputs.
/// `input` is written to its standard input (else it reads nothing).
func runTool(_ path: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil) throws -> AppHarness.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    try process.run()
    if let input {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return AppHarness.Result(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                             stderr: String(decoding: e, as: UTF8.self))
}

func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(text.utf8))
}

/// A `crated` started for a test, on a free loopback port, logging to a file.
final class Daemon {
    let process: ChildProcess
    let log: URL
    let port: Int
    let host: String

    /// Starts crated with `app`'s environment plus `extra`, listening on `host`, and waits until it answers.
    init(_ app: AppHarness, extra: [String: String] = [:], host: String = "127.0.0.1") throws {
        port = try AppSuites.DaemonTests.freePort()
        self.host = host
        log = app.home.appendingPathComponent("crated-\(port).log")
        process = try ChildProcess([AppHarness.binary("crated").path], environment: app.environment,
                                   extra: extra.merging(["CRATE_HTTP_ADDRESS": "\(host):\(port)"]) { $1 }, output: log)
        for _ in 0..<200 {
            if (try? app.crate("status", env: env)).map({ $0.status == 0 }) == true { return }
            if process.hasExited() { break }
            usleep(50_000)
        }
        throw Fixture.ToolError(description: "crated did not answer: \(text)")
    }

    /// The address variable CLI calls need to reach this daemon.
    var env: [String: String] { ["CRATE_HTTP_ADDRESS": "\(host):\(port)"] }
    var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SIGTERM, then waits (a hang guard, not a timing check); the exit status.
    @discardableResult
    func stop() -> Int32? {
        process.send(SIGTERM)
        return process.waitForExit(seconds: 30)
    }

    deinit { process.stop(signal: SIGKILL) }
}

extension AppHarness {
    /// The player's status; when `crate status` does not print it, the error says why: the CLI's exit and
    /// message, and whether crated still runs, with its log's end (a CI failure showed only "not valid JSON").
    func status(_ daemon: Daemon) throws -> PlayerStatus {
        let result = try crate("status", "--json", env: daemon.env)
        do {
            return try decodeJSON(PlayerStatus.self, result.stdout)
        } catch {
            let state = daemon.process.hasExited() ? "crated has exited" : "crated still runs"
            throw Fixture.ToolError(description: """
                crate status --json: exit \(result.status), stdout \(result.stdout.prefix(300).debugDescription), \
                stderr \(result.stderr.prefix(500).debugDescription) (\(error)); \(state); its log ends: \(daemon.text.suffix(2000))
                """)
        }
    }

    /// Polls the player until `condition` holds (at most `seconds`); the last status seen.
    @discardableResult
    func waitFor(_ daemon: Daemon, seconds: Double = 120, _ condition: (PlayerStatus) -> Bool) throws -> PlayerStatus {
        let deadline = Date().addingTimeInterval(seconds)
        var last = try status(daemon)
        while !condition(last) && Date() < deadline {
            usleep(50_000)
            last = try status(daemon)
        }
        return last
    }
}
