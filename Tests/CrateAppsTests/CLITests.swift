import CrateDomain
import CrateTestSupport
import Foundation
import Testing

@Suite struct CLITests {
    @Test func importListPlayRoundTrip() throws {
        let app = try AppHarness()
        let music = try app.makeMusic()

        let imported = try app.crate("import", music.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("5 tracks"))
        #expect(imported.stdout.contains("failed: \(music.path)/Band/Record/04 broken.flac"))

        let albums = try decodeJSON([Album].self, try app.crate("albums", "--json").stdout)
        #expect(albums.map(\.title) == ["Record", "Tape"])
        #expect(albums.map(\.trackCount) == [3, 2])

        let tracks = try decodeJSON([Track].self, try app.crate("tracks", "record", "--json").stdout)
        #expect(tracks.map(\.title) == ["Song 1", "Song 2", "Song 3"])
        #expect(tracks.allSatisfy { $0.info.codec == "flac" && $0.info.frames == 22050 })

        let listed = try app.crate("tracks", "Other Tape")
        #expect(listed.stdout.contains("Other — Tape") && listed.stdout.contains("Side 2"))

        // Played to the WAV file output: every frame of the album, in order, in one file.
        let played = try app.crate("play", "Record", "--output", "wav")
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stdout.contains("▶ 1/3  Song 1 — Band") && played.stdout.contains("▶ 3/3  Song 3 — Band"))
        #expect(played.stdout.contains("Finished Record."))
        let frames = try Fixture.run("soxi", ["-s", app.home.appendingPathComponent("out.wav").path])
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "66150")

        let fromTwo = try app.crate("play", "Record", "--from", "2", "--output", "null")
        #expect(fromTwo.stdout.contains("▶ 2/3") && !fromTwo.stdout.contains("▶ 1/3"))
    }

    @Test func autoOutputWithoutPulseWritesTheWAVFileAndSaysWhy() throws {
        let app = try AppHarness()
        _ = try app.crate("import", try app.makeMusic().path)
        let played = try app.crate("play", "Tape")
        #expect(played.status == 0)
        #expect(played.stderr.contains("output auto: using 'wav' because 'pulse' is unavailable"))
        #expect(played.stdout.contains("Output: \(app.home.path)/out.wav"))
    }

    @Test func pluginsAreListedWithStatusAndReason() throws {
        let app = try AppHarness()
        let list = try decodeJSON([PluginDescriptor].self, try app.crate("plugins", "--json").stdout)
        #expect(list.map(\.name) == ["localfiles", "flac", "vorbis", "opus", "mp3", "wav", "pulse", "wav", "null"])
        let pulse = try #require(list.first { $0.name == "pulse" })
        #expect(!pulse.available && pulse.reason != nil)
        let table = try app.crate("plugins").stdout
        #expect(table.contains("decoder") && table.contains("unavailable"))
    }

    @Test func userErrorsAreOneClearLine() throws {
        let app = try AppHarness()
        let missing = try app.crate("play", "No Such Album")
        #expect(missing.status != 0 && missing.stderr.contains("no album matches 'No Such Album'"))
        let badConfig = try app.crate("albums", env: ["CRATE_OUTPUT_PLUGIN": "alsa"])
        #expect(badConfig.status != 0 && badConfig.stderr.contains("output.plugin"))
        let noFolder = try app.crate("import", "/nonexistent/music")
        #expect(noFolder.status != 0 && noFolder.stderr.contains("/nonexistent/music: no such file or folder"))
        let empty = try app.crate("albums")
        #expect(empty.stdout.contains("The library is empty"))
    }

    /// Root reads every file, so the permission case runs the real CLI as an unprivileged user.
    @Test func unreadableFileIsReportedAsPermissionDenied() throws {
        var app = try AppHarness()
        let music = try app.makeMusic()
        let locked = music.appendingPathComponent("Band/Record/02.flac")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        var prefix: [String] = []
        if geteuid() == 0 {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
            // The unprivileged user needs to reach the build folder, the music and the data folder.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: app.home.path)
            app.environment["HOME"] = app.home.path
            prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            try #require(AppHarness.binaryIsReachable(by: prefix), "the build folder must be readable by other users")
        }
        let result = try app.crate("import", music.path, prefix: prefix)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("failed: \(locked.path): permission denied"))
        #expect(result.stdout.contains("4 tracks"))
    }
}

extension AppHarness {
    /// Whether `prefix` (another user) can execute the built binary; a build folder under a
    /// private home is not reachable, and then the permission test has nothing to say.
    static func binaryIsReachable(by prefix: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = prefix + [binary("crate").path, "--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

@Suite struct PlayInterruptTests {
    /// Played to a real (private) PulseAudio server, so playback runs at the pace of the sound;
    /// Ctrl-C (SIGINT) stops it between two chunks and the command ends normally.
    @Test func ctrlCStopsPlayback() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let app = try AppHarness()
        let album = app.home.appendingPathComponent("music/Long")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        for n in 1...2 {
            try Fixture.encode(.flac, to: album.appendingPathComponent("\(n).flac"), frames: 441_000,
                               tags: ["title": "Long \(n)", "artist": "Slow", "album": "Long", "track": "\(n)"])
        }
        #expect(try app.crate("import", album.path).status == 0)

        let log = app.home.appendingPathComponent("play.log")
        let play = try ChildProcess([AppHarness.binary("crate").path, "play", "Long", "--output", "pulse"],
                                    environment: app.environment,
                                    extra: ["CRATE_OUTPUT_PULSE_SERVER": server.server, "CRATE_OUTPUT_PULSE_SINK": server.sink],
                                    output: log)
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        for _ in 0..<500 where !text().contains("▶ 1/2") && !play.hasExited() { usleep(20_000) }
        #expect(text().contains("▶ 1/2  Long 1 — Slow"), "\(text())")
        usleep(300_000)
        play.send(SIGINT)
        // A hang guard, not a timing check: stopping takes one chunk.
        let status = play.waitForExit(seconds: 30)
        #expect(status == 0, "\(text())")
        #expect(text().contains("Stopped.") && !text().contains("▶ 2/2"), "\(text())")
    }
}
