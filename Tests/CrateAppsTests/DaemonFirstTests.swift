import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// One truth through the daemon: while crated runs, the CLI's changes go through it (so every client hears them);
    /// without it, player commands say so and touch nothing, readers never create or migrate the library, and only one
    /// process writes at a time.
    @Suite struct DaemonFirstTests {
        var database: (AppHarness) -> URL { { $0.home.appendingPathComponent("data/library.sqlite") } }

        /// Starts `curl -N` on the event stream; returns the file it writes and the process.
        func listen(_ app: AppHarness, _ daemon: Daemon) throws -> (URL, ChildProcess) {
            let out = app.home.appendingPathComponent("events-\(UUID().uuidString).txt")
            let curl = try ChildProcess(["curl", "-s", "-N", "http://127.0.0.1:\(daemon.port)/api/v1/events"], output: out)
            try waitUntil("the event stream to open", seconds: 30) { Self.text(out).contains(": crated events") }
            return (out, curl)
        }

        static func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

        @Test func playerCommandsWithoutADaemonSaySoAndTouchNoFile() throws {
            let app = try AppHarness()
            for command in [["pause"], ["status"], ["volume", "50"], ["play-album", "x"], ["queue", "add", "--album", "x"]] {
                let r = try app.crate(arguments: command, env: ["CRATE_HTTP_ADDRESS": "127.0.0.1:\(try Fixture.freePort())"])
                #expect(r.status != 0 && r.stderr.contains("crated is not running"), "\(command): \(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: database(app).path), "a player command created the library")
        }

        @Test func readersNeverCreateOrMigrateTheLibrary() throws {
            let app = try AppHarness()
            for command in [["albums"], ["tracks"], ["artists"], ["fav"], ["playlist", "list"], ["home"], ["missing"], ["search", "x"]] {
                let r = try app.crate(arguments: command)
                #expect(r.status == 0, "\(command): \(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: database(app).path), "a reading command created the library")
            // Once there is a library, readers open it read-only: a read-only file serves them.
            _ = try app.crate("import", "--mode", "reference", try app.makeMusic().path)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database(app).path)
            let albums = try app.crate("albums")
            #expect(albums.status == 0 && albums.stdout.contains("Record"), "\(albums.stderr)")
        }

        @Test func cliChangesGoThroughTheRunningDaemonAndEveryClientHearsThem() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            let daemon = try Daemon(app)
            let (events, curl) = try listen(app, daemon)
            defer { curl.stop(signal: SIGKILL) }

            // An import from the CLI runs in the daemon (the library's writer) and reports as a local one would.
            let imported = try app.crate("import", "--mode", "reference", music.path, env: daemon.env)
            #expect(imported.status == 0 && imported.stdout.contains("reference: 5 imported"), "\(imported.stdout)\(imported.stderr)")
            try waitUntil("the import's events", seconds: 30) { Self.text(events).contains("import done") }

            let fav = try app.crate("fav", "album", "Record", env: daemon.env)
            #expect(fav.status == 0, "\(fav.stderr)")
            try waitUntil("the favorite's event", seconds: 30) { Self.text(events).contains(": favorite") }
            let made = try app.crate("playlist", "create", "Road", "Trip", env: daemon.env)
            #expect(made.status == 0 && made.stdout.contains("Road Trip"), "\(made.stderr)")
            try waitUntil("the playlist's event", seconds: 30) { Self.text(events).contains("created") }
            let added = try app.crate("playlist", "add", "Road Trip", "--album", "Tape", env: daemon.env)
            #expect(added.status == 0, "\(added.stderr)")
            try waitUntil("the playlist add's event", seconds: 30) { Self.text(events).contains("added 2") }
            // Taking a favorite back is heard too.
            #expect(try app.crate("fav", "album", "Record", "--remove", env: daemon.env).status == 0)
            try waitUntil("the favorite's removal", seconds: 30) { Self.text(events).contains(": no opinion") }
            #expect(try app.crate("playlist", "show", "Road Trip", env: daemon.env).stdout.contains("Side 2"))
        }

        @Test func onlyOneWriterAtATime() throws {
            let app = try AppHarness()
            _ = try app.crate("import", "--mode", "reference", try app.makeMusic().path)
            let daemon = try Daemon(app)
            // A second crated on another port stops before touching the library, naming the first.
            let second = try app.crated(["CRATE_HTTP_ADDRESS": "127.0.0.1:\(try Fixture.freePort())"])
            #expect(second.status == 75 && second.stderr.contains("crated is already running (pid \(daemon.process.pid))"), "\(second)")
            #expect(!second.stderr.contains("rescan"))
            // A CLI that cannot reach the daemon (another address) must not write beside it.
            let blind = try app.crate("playlist", "create", "Elsewhere", env: ["CRATE_HTTP_ADDRESS": "127.0.0.1:\(try Fixture.freePort())"])
            #expect(blind.status != 0 && blind.stderr.contains("pid \(daemon.process.pid)") && blind.stderr.contains("cannot while crated runs"),
                    "\(blind.stderr)")
            #expect(try app.crate("playlist", "list", env: daemon.env).stdout.contains("Elsewhere") == false)
        }

        @Test func writesByAnotherProcessBecomeLibraryEvents() throws {
            let app = try AppHarness()
            _ = try app.crate("import", "--mode", "reference", try app.makeMusic().path)
            let daemon = try Daemon(app)
            let (events, curl) = try listen(app, daemon)
            defer { curl.stop(signal: SIGKILL) }
            // sqlite3 from Python: a writer Crate does not know about.
            _ = try Fixture.run("python3", ["-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE album SET title = title"); db.commit()
                """, database(app).path])
            try waitUntil("a library event for the outside write", seconds: 30) { Self.text(events).contains("changed by another process") }
        }
    }
}
