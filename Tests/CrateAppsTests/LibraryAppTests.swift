import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// The library from the CLI and through the daemon's API, as users drive it.
    @Suite struct LibraryAppTests {
        func curl(_ daemon: Daemon, _ method: String, _ path: String, _ body: String? = nil) throws -> (status: Int, body: String) {
            var args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "http://127.0.0.1:\(daemon.port)/api/v1/\(path)"]
            if let body { args += ["-H", "Content-Type: application/json", "-d", body] }
            let out = try Fixture.run("curl", args)
            let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        /// Issue 16, item 9: a copy import killed (-9) or interrupted (Ctrl-C) mid-copy leaves a partial file or a
        /// copy no track refers to; the next import, or the daemon's start, removes them (it journals each copy
        /// before making it), `crate library` then reports no leftovers, and no original is ever lost.
        @Test func anInterruptedCopyImportLeavesNothingBehind() throws {
            let app = try AppHarness()
            let source = app.home.appendingPathComponent("big/Long")
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            // Two-minute WAVs: a verified copy (fsync and a re-read) lasts long enough to be caught in progress.
            let originals = try (1...6).map { n in
                try Fixture.encode(.wav, to: source.appendingPathComponent("0\(n).wav"), frames: 44100 * 120,
                                   tags: ["title": "Part \(n)", "artist": "Big", "album": "Long", "track": "\(n)"])
            }
            let library = app.home.appendingPathComponent("data/library")
            func partialExists() -> Bool {
                let walk = FileManager.default.enumerator(atPath: library.path)
                while let name = walk?.nextObject() as? String {
                    if (name as NSString).lastPathComponent.hasPrefix(".crate-partial-") { return true }
                }
                return false
            }
            struct Status: Decodable { var leftovers: Int; var diagnostics: Diagnostics; struct Diagnostics: Decodable { var tracks: Int } }
            func status() throws -> Status { try decodeJSON(Status.self, try app.crate("library", "--json").stdout) }
            // Every original is either still there or in the library.
            func nothingLost() throws {
                let titles = Set(try decodeJSON([Track].self, try app.crate("tracks", "--json").stdout).map(\.title))
                for (n, file) in originals.enumerated() {
                    #expect(FileManager.default.fileExists(atPath: file.path) || titles.contains("Part \(n + 1)"), "\(file.path) lost")
                }
            }
            /// Starts the import and interrupts it while a copy is being written; retries until something was left.
            func interrupt(with signal: Int32) throws {
                for _ in 0..<3 {
                    let child = try ChildProcess([AppHarness.binary("crate").path, "import", "--mode", "copy_then_delete",
                                                  "--delete-originals", source.deletingLastPathComponent().path],
                                                 environment: app.environment)
                    let deadline = Date().addingTimeInterval(120)
                    // A tight poll: the window is one file's copy (bounded: a hang guard, not a timing check).
                    while !partialExists() && !child.hasExited() && Date() < deadline { usleep(500) }
                    child.stop(signal: signal)
                    if try status().leftovers > 0 { return }
                }
            }

            try interrupt(with: SIGKILL)
            let left = try status().leftovers
            try #require(left > 0, "three interrupted imports left nothing to clean up: the test could not make its case")
            try nothingLost()
            // The same import again: it removes what the killed one left, then finishes.
            let again = try app.crate("import", "--mode", "copy_then_delete", "--delete-originals", source.deletingLastPathComponent().path)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("removed what an interrupted import left"), "\(again.stderr)")
            #expect(try status().leftovers == 0 && !partialExists())
            try nothingLost()

            // Ctrl-C, then the daemon's start does the same (its launch rescan).
            let more = source.deletingLastPathComponent().appendingPathComponent("More")
            try FileManager.default.createDirectory(at: more, withIntermediateDirectories: true)
            for n in 1...4 {
                try Fixture.encode(.wav, to: more.appendingPathComponent("0\(n).wav"), frames: 44100 * 120,
                                   tags: ["title": "More \(n)", "artist": "Big", "album": "More", "track": "\(n)"])
            }
            try interrupt(with: SIGINT)
            try #require(try status().leftovers > 0, "three Ctrl-C'd imports left nothing to clean up")
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            defer { daemon.stop() }
            try waitUntil("the daemon's launch rescan removes the leftovers", seconds: 120) { try status().leftovers == 0 }
            #expect(!partialExists())
            try nothingLost()
        }

        /// Issue 16, item 13: on a terminal, log lines go above the progress bar (they were written into it), and
        /// the warnings that scrolled past are listed whole in the report.
        @Test func warningsGoAboveTheProgressBarAndIntoTheReport() throws {
            let app = try AppHarness()
            let music = app.home.appendingPathComponent("music")
            for folder in ["A", "B", "C"] {
                try FileManager.default.createDirectory(at: music.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            for n in 1...3 {
                try Fixture.encode(.flac, to: music.appendingPathComponent("A/0\(n).flac"), frames: 4410 * n, tags: ["title": "T\(n)"])
            }
            try Data("junk".utf8).write(to: music.appendingPathComponent("B/x.flac"))
            try Data("junk".utf8).write(to: music.appendingPathComponent("C/y.mp3"))
            // A copy an interrupted import made, whose original is gone since: kept, with a warning.
            let data = app.home.appendingPathComponent("data")
            let kept = data.appendingPathComponent("library/Gone/Album/01 Kept.flac")
            try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: music.appendingPathComponent("A/01.flac"), to: kept)
            try Data(Array(kept.path.utf8) + [0] + Array("/nowhere/original.flac".utf8) + [0]).write(to: data.appendingPathComponent("import-journal"))

            // Under a pseudo-terminal (script(1)), as a user at a shell sees it.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "'\(AppHarness.binary("crate").path)' import --mode reference '\(music.path)'", "/dev/null"]
            process.environment = app.environment
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(text)")
            // The terminal ends lines with CR LF; a lone CR returns to the start of the line.
            let warnings = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
                .filter { $0.contains(" warning crate:") }
            #expect(warnings.count >= 3, "\(text)")
            for line in warnings {
                // What stays visible on that terminal line: the text after its last carriage return.
                let visible = line.components(separatedBy: "\r").last { !$0.isEmpty } ?? ""
                #expect(!visible.contains("files/s") && visible.contains("warning"), "a log line torn by the bar: \(visible.debugDescription)")
            }
            #expect(text.contains("warnings (1):") && text.contains("01 Kept.flac was copied by an interrupted import whose original is gone"),
                    "\(text)")
            #expect(text.contains("failed: \(music.path)/B/x.flac"))
        }

        @Test func importShowsProgressAndFailuresAreListedRetriedAndCleared() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            let imported = try app.crate("import", "--progress", music.path)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.contains("progress: ") && imported.stderr.contains("/6 files"), "\(imported.stderr)")
            #expect(imported.stdout.contains("copy: 5 imported"))
            let failures = try app.crate("import", "failures")
            #expect(failures.stdout.contains("04 broken.flac") && failures.stdout.contains("1 failed"))
            let retried = try app.crate("import", "failures", "--retry")
            #expect(retried.stdout.contains("1 failed"))
            #expect(try app.crate("import", "failures", "--clear").stdout.contains("cleared 1"))
            #expect(try app.crate("import", "failures").stdout.contains("No failed imports."))
            let status = try app.crate("library", "status", "--json")
            #expect(status.stdout.contains("\"importMode\" : \"copy\""), "\(status.stdout)")
        }

        @Test func editDeleteMissingAndMaintenanceFromTheCLI() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            _ = try app.crate("import", music.path)
            let tracks = try decodeJSON([Track].self, try app.crate("tracks", "record", "--json").stdout)
            let edit = try app.crate("edit", "\(tracks[0].id)", "--title", "New Name", "--json")
            #expect(try decodeJSON(Track.self, edit.stdout).title == "New Name")
            #expect(try app.crate("tracks", "record").stdout.contains("New Name"))
            #expect(try app.crate("albums", "--json").stdout.contains("\"title\" : \"Record\""))
            let deleted = try app.crate("delete", "\(tracks[2].id)")
            #expect(deleted.stdout.contains("deleted 1 library file"))
            // A copied file removed behind Crate's back is missing after a rescan, then deleted from the list.
            try FileManager.default.removeItem(atPath: try #require(tracks[1].path))
            let rescan = try app.crate("rescan")
            #expect(rescan.stdout.contains("1 newly missing"), "\(rescan.stdout)")
            #expect(try app.crate("missing").stdout.contains("not_found"))
            #expect(try app.crate("missing", "delete", "--all").stdout.contains("removed 1 missing track"))
            #expect(try app.crate("library", "repair").status == 0)
            #expect(try app.crate("library", "cleanup", "--dry-run").stdout.contains("0 orphaned files"))
            let bad = try app.crate("edit", "999", "--title", "x")
            #expect(bad.status != 0 && bad.stderr.contains("no track has id 999"))
        }

        /// Root reads every file, so the check runs the real CLI as an unprivileged user (as CLITests does).
        @Test func anUnreadableLibraryFileIsMissingWithPermission() throws {
            var app = try AppHarness()
            let music = try app.makeMusic()
            _ = try app.crate("import", "--mode", "reference", music.path)
            let locked = music.appendingPathComponent("Band/Record/02.flac")
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            var prefix: [String] = []
            var binary = AppHarness.binary("crate")
            if geteuid() == 0 {
                try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
                // The unprivileged user runs a copy of the binary (the checkout may be private) and writes the missing
                // flag: it needs the data folder and the database.
                binary = try app.publicCopyOfCrate()
                _ = try Fixture.run("chmod", ["-R", "a+rwX", app.home.path])
                try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
                app.environment["HOME"] = app.home.path
                prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                try #require(AppHarness.isReachable(binary, by: prefix), "\(binary.path) must be runnable by other users")
            }
            let missing = try app.crate(arguments: ["missing", "--check"], prefix: prefix, binary: binary)
            #expect(missing.status == 0, "\(missing.stderr)")
            #expect(missing.stdout.contains("permission") && missing.stdout.contains("02.flac"), "\(missing.stdout)")
            #expect(missing.stdout.components(separatedBy: "\n").filter { $0.contains("permission") }.count == 1)
        }

        @Test func daemonScansItsImportFolderAtLaunchAndServesTheLibraryAPI() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            let inbox = app.home.appendingPathComponent("data/import", isDirectory: true)
            try FileManager.default.createDirectory(at: inbox.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: music, to: inbox)
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            defer { daemon.stop() }
            // Start-up did not wait for the scan; it finishes in the background.
            var status = try curl(daemon, "GET", "library/status")
            try waitUntil("the start-up scan to finish (library/status: \(status.body))", seconds: 30) {
                status = try curl(daemon, "GET", "library/status")
                return status.body.contains("\"state\":\"done\"")
            }
            #expect(status.status == 200 && status.body.contains("\"state\":\"done\""), "\(status.body)")
            let albums = try decodeJSON([Album].self, try curl(daemon, "GET", "albums").body)
            #expect(albums.map(\.title) == ["Record", "Tape"])
            // Rescan on demand: a job, reported as accepted; a second one while it runs is refused or done.
            let rescan = try curl(daemon, "POST", "library/rescan")
            #expect(rescan.status == 202 && rescan.body.contains("\"kind\":\"rescan\""))
            // Edits, deletion and failures through the API.
            let tracks = try decodeJSON([Track].self, try curl(daemon, "GET", "albums/\(albums[0].id)/tracks").body)
            let patched = try curl(daemon, "PATCH", "tracks/\(tracks[0].id)", #"{"title":"API Title","clear":[]}"#)
            #expect(patched.status == 200 && patched.body.contains("API Title"), "\(patched.body)")
            let unknown = try curl(daemon, "DELETE", "tracks/4242")
            #expect(unknown.status == 404 && unknown.body.contains("not_found"))
            let gone = try curl(daemon, "DELETE", "tracks/\(tracks[1].id)")
            #expect(gone.status == 200 && gone.body.contains("deletedFiles"))
            let failures = try curl(daemon, "GET", "library/failures")
            #expect(failures.body.contains("04 broken.flac"))
            #expect(try curl(daemon, "GET", "library/missing").body == "[]")
            #expect(try curl(daemon, "GET", "artwork/\(String(repeating: "0", count: 64))").status == 404)
            try waitUntil("the rescan to finish", seconds: 30) {
                try !curl(daemon, "GET", "library/status").body.contains("\"state\":\"running\"")
            }
            #expect(daemon.text.contains("rescan"))
        }
    }
}
