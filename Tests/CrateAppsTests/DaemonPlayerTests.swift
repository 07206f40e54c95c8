import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// The player through the real daemon and the real CLI.
    @Suite struct DaemonPlayerTests {
        @Test func playAlbumRendersTheWholeAlbumGaplesslyAndRecordsHistory() throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "wav"])
            let played = try app.crate("play-album", "Record", env: daemon.env)
            #expect(played.status == 0, "\(played.stderr)")
            let done = try app.waitFor(daemon) { $0.state == .stopped }
            #expect(done.state == .stopped && done.queueLength == 3)
            // One WAV file holding exactly the album's frames: nothing lost or doubled at the borders.
            let frames = try Fixture.run("soxi", ["-s", app.home.appendingPathComponent("out.wav").path])
            #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "66150")
            let history = try decodeJSON([HistoryEntry].self, try app.crate("history", "--json", env: daemon.env).stdout)
            #expect(history.map(\.track.title) == ["Song 3", "Song 2", "Song 1"])
            #expect(daemon.stop() == 0)
            #expect(daemon.text.contains("output 'wav' chosen by configuration"))
        }

        /// Issue 17: the file output keeps time by default. The album (1.5 s) cannot be over sooner than it lasts —
        /// before, it was "played" in a few milliseconds — and the file still holds exactly its frames. Only this
        /// bound is asserted (a busy machine makes it longer, never shorter); Benchmarks/outputs.sh measures the pace.
        @Test func theFileOutputPlaysInRealTimeAndStaysGapless() throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "wav", "CRATE_OUTPUTS_WAV_RENDER": "false"])
            let started = ContinuousClock.now
            #expect(try app.crate("play-album", "Record", env: daemon.env).status == 0)
            let done = try app.waitFor(daemon) { $0.state == .stopped }
            let took = ContinuousClock.now - started
            #expect(done.state == .stopped)
            #expect(took >= .milliseconds(1500), "a 1.5 s album was over after \(took)")
            let frames = try Fixture.run("soxi", ["-s", app.home.appendingPathComponent("out.wav").path])
            #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "66150")
            #expect(daemon.stop() == 0)
        }

        /// Issue 17 item 4: crated starts although its configured output cannot be reached (under systemd the sound
        /// server may come up later), says so in status, and finds the output once it is there.
        @Test func crateStartsWithoutItsConfiguredOutputAndFindsItLater() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "pulse"])
            let status = try app.status(daemon)
            let trouble = try #require(status.outputError, "no outputError in status --json")
            #expect(trouble.output == "pulse" && trouble.reason.contains("no PulseAudio server answers"), "\(trouble)")
            let text = try app.crate("status", env: daemon.env).stdout
            #expect(text.contains("output error: pulse:"), "\(text)")
            // The sound server comes up where crated was told to look.
            let server = try PulseTestServer(socket: app.home.appendingPathComponent("no-pulse"))
            defer { server.stop() }
            let later = try app.waitFor(daemon) { $0.outputError == nil }
            #expect(later.outputError == nil, "crated did not find the output: \(String(describing: later.outputError))")
            #expect(daemon.stop() == 0)
            #expect(daemon.text.contains("output 'pulse' is back"))
        }

        @Test func autoOutputWithoutPulseFallsBackToTheTimeKeepingNullOutputAndSaysWhy() throws {
            let app = try AppHarness()
            let plugins = try app.crate("plugins")
            #expect(plugins.stdout.contains("Output: null — output auto: using 'null' because 'pulse' is unavailable"), "\(plugins.stdout)")
            let daemon = try Daemon(app)
            #expect(daemon.stop() == 0)
            #expect(daemon.text.contains("output auto: using 'null' because 'pulse' is unavailable"))
        }

        @Test func queueEditsFollowTheRules() throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            func titles() throws -> [String] {
                try decodeJSON([QueueEntry].self, try app.crate("queue", "list", "--json", env: daemon.env).stdout).map(\.track.title)
            }
            #expect(try app.crate("queue", "add", "--album", "Record", env: daemon.env).status == 0)
            #expect(try app.crate("queue", "add", "--album", "Tape", env: daemon.env).status == 0)
            #expect(try titles() == ["Song 1", "Song 2", "Song 3", "Side 1", "Side 2"])
            let listed = try app.crate("tracks", "Tape", "--json")
            let side2 = try #require(try? decodeJSON([Track].self, listed.stdout).last?.id, "\(listed.stdout)\n\(listed.stderr)")
            // Nothing is playing: "play next" puts it first. Duplicates are fine.
            #expect(try app.crate("queue", "add", "--track", String(side2), "--next", env: daemon.env).status == 0)
            #expect(try app.crate("queue", "insert", "3", "--track", String(side2), env: daemon.env).status == 0)
            #expect(try titles() == ["Side 2", "Song 1", "Side 2", "Song 2", "Song 3", "Side 1", "Side 2"])
            #expect(try app.crate("queue", "move", "1", "7", env: daemon.env).status == 0)
            #expect(try app.crate("queue", "remove", "2", env: daemon.env).status == 0)
            #expect(try titles() == ["Song 1", "Song 2", "Song 3", "Side 1", "Side 2", "Side 2"])
            let bad = try app.crate("queue", "remove", "99", env: daemon.env)
            #expect(bad.status != 0 && bad.stderr.contains("no queue entry 99 (the queue has 6)"))
            #expect(try app.crate("queue", "clear", env: daemon.env).status == 0)
            #expect(try titles().isEmpty)
            daemon.stop()
        }

        @Test func missingFileMidQueueIsSkippedFlaggedAndAnnounced() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            _ = try app.crate("import", "--mode", "reference", music.path)
            try FileManager.default.removeItem(at: music.appendingPathComponent("Band/Record/02.flac"))
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "wav"])
            let watchLog = app.home.appendingPathComponent("watch.log")
            let watch = try ChildProcess([AppHarness.binary("crate").path, "watch"], environment: app.environment,
                                         extra: daemon.env, output: watchLog)
            defer { watch.stop(signal: SIGTERM) }
            func events() -> String { (try? String(contentsOf: watchLog, encoding: .utf8)) ?? "" }
            try waitUntil("crate watch to connect", seconds: 30) { events().contains("watching crated at") }
            #expect(events().contains("watching crated at 127.0.0.1:\(daemon.port)"))
            #expect(try app.crate("play-album", "Record", env: daemon.env).status == 0)
            let done = try app.waitFor(daemon) { $0.state == .stopped }
            #expect(done.lastSkip?.title == "Song 2" && done.lastSkip?.missing == .notFound)
            let history = try decodeJSON([HistoryEntry].self, try app.crate("history", "--json", env: daemon.env).stdout)
            #expect(history.map(\.track.title) == ["Song 3", "Song 1"])
            let frames = try Fixture.run("soxi", ["-s", app.home.appendingPathComponent("out.wav").path])
            #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "44100")
            try waitUntil("the missing-track event in crate watch", seconds: 30) { events().contains("library: missing Song 2") }
            #expect(events().contains("player: skipped Song 2: not_found"), "\(events())")
            #expect(events().contains("library: missing Song 2"))
            #expect(events().contains("queue: replaced"))
            daemon.stop()
        }

        /// Queue, pointer, position, modes and volume survive a restart; the daemon comes back paused.
        @Test func restartRestoresQueuePointerPositionAndModes() throws {
            let server = try PulseTestServer()
            defer { server.stop() }
            let app = try AppHarness()
            let album = app.home.appendingPathComponent("music/Long")
            try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
            for n in 1...2 {
                try Fixture.encode(.flac, to: album.appendingPathComponent("\(n).flac"), frames: 441_000,
                                   tags: ["title": "Long \(n)", "artist": "Slow", "album": "Long", "track": "\(n)"])
            }
            _ = try app.crate("import", album.path)
            let pulse = ["CRATE_OUTPUT_PLUGIN": "pulse", "CRATE_OUTPUTS_PULSE_SERVER": server.server,
                         "CRATE_OUTPUTS_PULSE_SINK": server.sink]
            var daemon = try Daemon(app, extra: pulse)
            // Selecting track 2 queues it and the tracks after it (here: just it).
            #expect(try app.crate("play-album", "Long", "--from", "2", env: daemon.env).status == 0)
            try app.waitFor(daemon) { $0.state == .playing && $0.elapsed > 0 }
            for args in [["seek", "6.5"], ["volume", "40"], ["repeat", "all"], ["shuffle", "on"], ["stop-after-album", "on"], ["pause"]] {
                #expect(try app.crate(arguments: args, env: daemon.env).status == 0, "crate \(args)")
            }
            let before = try app.status(daemon)
            #expect(before.state == .paused)
            daemon.process.send(SIGINT)   // Ctrl-C: stops cleanly and saves
            #expect(daemon.process.waitForExit(seconds: 30) == 0)

            daemon = try Daemon(app, extra: pulse)
            let after = try app.status(daemon)
            #expect(after.state == .paused)
            #expect(after.entry?.index == 1 && after.entry?.track.title == "Long 2")
            #expect(abs(after.elapsed - before.elapsed) < 0.2 && after.elapsed >= 6.4)
            #expect(after.modes.volume == 40 && after.modes.repeatMode == .all && after.modes.shuffle && after.modes.stopAfterAlbum)
            #expect(after.queueLength == 1)
            // Playing resumes from the saved position.
            #expect(try app.crate("play", env: daemon.env).status == 0)
            let resumed = try app.waitFor(daemon) { $0.state == .playing && $0.elapsed > after.elapsed + 0.1 }
            #expect(resumed.state == .playing && resumed.elapsed >= after.elapsed)
            daemon.stop()
        }
    }
}
