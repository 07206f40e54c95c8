import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
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
        }

        /// Issue 16, item 5: taking a favorite back leaves a dislike alone, directly and through the daemon.
        @Test func removingAFavoriteKeepsADislike() throws {
            let app = try AppHarness()
            _ = try app.crate("import", "--mode", "reference", try app.makeMusic().path)
            #expect(try app.crate("dislike", "Tape").status == 0)
            #expect(try app.crate("fav", "album", "Tape", "--remove").status == 0)
            #expect(try app.crate("dislike").stdout.contains("Tape"))
            let daemon = try Daemon(app)
            #expect(try app.crate("fav", "album", "Tape", "--remove", env: daemon.env).status == 0)
            #expect(try app.crate("dislike", env: daemon.env).stdout.contains("Tape"))
        }

        /// Issue 16, item 10: `-5` is a change, not an unknown option.
        @Test func negativeAndPositiveChangesAreAccepted() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app)
            let down = try app.crate("volume", "-5", env: daemon.env)
            #expect(down.status == 0 && down.stdout.contains("volume: 95"), "\(down.stderr)")
            let up = try app.crate("volume", "+3", env: daemon.env)
            #expect(up.status == 0 && up.stdout.contains("volume: 98"), "\(up.stderr)")
            let seek = try app.crate("seek", "-5", env: daemon.env)
            #expect(!seek.stderr.contains("Unknown option") && !seek.stderr.contains("Usage"), "\(seek.stderr)")
            #expect(try app.crate("seek", "-x", env: daemon.env).stderr.contains("is not a position"))
        }

        /// Issue 16, item 19: "1 album", not "1 albums"; "0 bytes", not "Zero KB".
        @Test func countsAndSizesReadAsEnglish() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            try FileManager.default.removeItem(at: music.appendingPathComponent("Other"))
            let imported = try app.crate("import", "--mode", "reference", music.path)
            #expect(imported.stdout.contains("Library: 1 album, 3 tracks, 1 artist"), "\(imported.stdout)")
            let status = try app.crate("library")
            #expect(!status.stdout.contains("Zero") && status.stdout.contains("0 bytes"), "\(status.stdout)")
            #expect(try app.crate("artists").stdout.contains("[1 album, 3 tracks]"))
        }

        /// Issue 16, item 11: `--config` before the command works; a mistyped command gets "did you mean".
        @Test func configBeforeTheCommandAndDidYouMean() throws {
            let app = try AppHarness()
            let file = app.home.appendingPathComponent("other.yaml")
            try "http:\n  address: 127.0.0.1:7777\n".write(to: file, atomically: true, encoding: .utf8)
            let before = try app.crate("--config", file.path, "config", "--get", "http.address")
            #expect(before.status == 0 && before.stdout.contains("127.0.0.1:7777"), "\(before.stderr)")
            let joined = try app.crate("--config=\(file.path)", "config", "--get", "http.address")
            #expect(joined.stdout.contains("127.0.0.1:7777"), "\(joined.stderr)")
            let typo = try app.crate("plya")
            #expect(typo.status != 0 && typo.stderr.contains("Did you mean 'play'?"), "\(typo.stderr)")
            #expect(try app.crate("stauts").stderr.contains("Did you mean 'status'?"))
        }

        /// Issue 16, item 12: `crate config` lists every key (import.*, artwork.*, each plugin's block with its
        /// default) with its origin; `--get` knows them all (and former names); unknown file keys are warned about.
        @Test func configListsEveryKeyWithItsOrigin() throws {
            let app = try AppHarness()
            let file = app.home.appendingPathComponent("config/crate/config.yaml")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try """
                log:
                  level: notice
                improt:
                  mode: reference
                sources:
                  applecatalog:
                    storefrnt: gb
                """.write(to: file, atomically: true, encoding: .utf8)
            let env = ["CRATE_ARTWORK_THUMBNAIL_SIZE": "200"]
            let listed = try app.crate("config", "--json", env: env)
            struct Row: Decodable { var value: String; var origin: String }
            let rows = try decodeJSON([String: Row].self, listed.stdout)
            #expect(rows["import.mode"]?.value == "copy" && rows["import.mode"]?.origin == "default")
            #expect(rows["artwork.repair_limit"]?.value == "500" && rows["artwork.thumbnail_size"]?.origin == "env")
            #expect(rows["artwork.thumbnail_size"]?.value == "200" && rows["log.level"]?.origin == "file")
            #expect(rows["sources.applecatalog.base_url"]?.value == "https://api.music.apple.com")
            #expect(rows["sources.applecatalog.requests_per_second"]?.value == "20")
            #expect(rows["sources.urlstream.buffer_kb"]?.value == "512" && rows["outputs.wav.path"]?.origin == "env")
            #expect(rows["import.delete_originals"] != nil && rows["import.folder"] != nil && rows["feeds.dial"]?.value == "mixed")
            #expect(try app.crate("config", "--get", "import.mode").stdout == "copy\n")
            #expect(try app.crate("config", "--get", "catalog.requests_per_second").stdout == "20\n")
            let typo = try app.crate("config", "--get", "import.mdoe")
            #expect(typo.status != 0 && typo.stderr.contains("unknown key 'import.mdoe'. Did you mean 'import.mode'?"), "\(typo.stderr)")
            // Keys the file has that Crate does not read are named with the nearest known key.
            #expect(listed.stderr.contains("unknown key 'improt.mode' is ignored; did you mean 'import.mode'?"), "\(listed.stderr)")
            #expect(listed.stderr.contains("unknown key 'sources.applecatalog.storefrnt' is ignored; did you mean 'sources.applecatalog.storefront'?"))
            #expect(!listed.stderr.contains("'log.level'"))
            // The mode a first import stores comes from the database.
            try FileManager.default.removeItem(at: file)
            _ = try app.crate("import", "--mode", "reference", try app.makeMusic().path)
            let after = try decodeJSON([String: Row].self, try app.crate("config", "--json").stdout)
            #expect(after["import.mode"]?.value == "reference" && after["import.mode"]?.origin == "database")
        }

        @Test func pluginsAreListedWithStatusAndReason() throws {
            let app = try AppHarness()
            let list = try decodeJSON([PluginDescriptor].self, try app.crate("plugins", "--json").stdout)
            #expect(list.map(\.name) == ["localfiles", "applecatalog", "urlstream", "flac", "vorbis", "opus", "mp3", "wav", "ffmpeg", "pulse", "alsa", "pipe", "wav", "null", "fifo", "stream", "ffmpeg"])
            // The encoder says what it writes.
            #expect(list.last.map { $0.kind == .encoder && $0.handles == ["opus", "mp3"] } == true)
            // Without credentials the catalog is listed, unavailable, with what to set.
            let catalog = try #require(list.first { $0.name == "applecatalog" })
            #expect(!catalog.available && catalog.reason?.contains("catalog.team_id") == true)
            #expect(list.first { $0.name == "urlstream" }?.available == true)
            let pulse = try #require(list.first { $0.name == "pulse" })
            #expect(!pulse.available && pulse.reason != nil)
            let table = try app.crate("plugins").stdout
            #expect(table.contains("decoder") && table.contains("unavailable"))
        }

        @Test func userErrorsAreOneClearLine() throws {
            let app = try AppHarness()
            // A player command checks for the daemon before anything else (it never opens the library without one).
            let missing = try app.crate("play-album", "No Such Album")
            #expect(missing.status != 0 && missing.stderr.contains("crated is not running"), "\(missing.stderr)")
            let unknown = try app.crate("tracks", "No Such Album")
            #expect(unknown.status != 0 && unknown.stderr.contains("no album matches 'No Such Album'"), "\(unknown.stderr)")
            let badConfig = try app.crate("albums", env: ["CRATE_OUTPUT_PLUGIN": "jack"])
            #expect(badConfig.status != 0 && badConfig.stderr.contains("output.plugin"))
            let noFolder = try app.crate("import", "/nonexistent/music")
            #expect(noFolder.status != 0 && noFolder.stderr.contains("/nonexistent/music: no such file or folder"))
            let empty = try app.crate("albums")
            #expect(empty.stdout.contains("The library is empty"))
            let noDaemon = try app.crate("status")
            #expect(noDaemon.status != 0 && noDaemon.stderr.contains("crated is not running at 127.0.0.1:"))
        }

        /// Root reads every file, so the permission case runs the real CLI as an unprivileged user.
        @Test func unreadableFileIsReportedAsPermissionDenied() throws {
            var app = try AppHarness()
            let music = try app.makeMusic()
            let locked = music.appendingPathComponent("Band/Record/02.flac")
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            var prefix: [String] = []
            var binary = AppHarness.binary("crate")
            if geteuid() == 0 {
                try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
                // The unprivileged user runs a copy of the binary (the checkout may be private), and needs to reach the
                // music and the data folder.
                binary = try app.publicCopyOfCrate()
                try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: app.home.path)
                app.environment["HOME"] = app.home.path
                prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                try #require(AppHarness.isReachable(binary, by: prefix), "\(binary.path) must be runnable by other users")
            }
            let result = try app.crate(arguments: ["import", music.path], prefix: prefix, binary: binary)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("failed: \(locked.path): permission denied"))
            #expect(result.stdout.contains("4 tracks"))
        }
    }
}

extension AppHarness {
    /// Whether `prefix` (another user) can execute `binary`.
    static func isReachable(_ binary: URL, by prefix: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = prefix + [binary.path, "--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

/// Every command of both programs names itself in its `CommandConfiguration`: ArgumentParser otherwise derives the
/// name with `String(describing:)`, and the protocol-conformance scans that costs took a third of each `crate`
/// start (Apps/crate/CrateCommand.swift). Read from the sources, since a missing name changes no behaviour.
@Suite struct CommandNameTests {
    @Test func everyCommandNamesItself() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var unnamed: [String] = []
        var seen = 0
        for app in ["Apps/crate", "Apps/crated"] {
            let folder = root.appendingPathComponent(app)
            let walker = FileManager.default.enumerator(atPath: folder.path)
            while let name = walker?.nextObject() as? String {
                guard name.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                let declaration = try Regex(#"struct (\w+)\s*:[^{]*(ParsableCommand|TransportCommand)[^{]*\{"#)
                for match in text.matches(of: declaration) {
                    seen += 1
                    // The type's own configuration comes before any nested type.
                    var body = text[match.range.upperBound...]
                    if let nested = body.firstMatch(of: try Regex(#"\bstruct \w+"#)) { body = body[..<nested.range.lowerBound] }
                    if !body.contains("commandName:") { unnamed.append("\(app)/\(name): \(match.output[1].substring ?? "")") }
                }
            }
        }
        #expect(seen > 50, "found only \(seen) commands: did the sources move?")
        #expect(unnamed.isEmpty, "commands without commandName: \(unnamed)")
    }
}

/// libcurl, libpulse and FFmpeg are opened when a stream, the Apple Music API, the PulseAudio output or an FFmpeg
/// codec is first used (Modules/CLibraries/CCurl, CPulse, CFFmpeg): linked, they cost every `crate` command 15, 3 and
/// 60 ms of its start and the idle daemon 5.6 and 1.3 MiB. The dynamic loader's own list of what it loads (`LD_TRACE_LOADED_OBJECTS`, what ldd uses)
/// holds that for the binaries as built, whatever a dependency imports.
@Suite struct StartUpLibraryTests {
    @Test(arguments: ["crate", "crated"])
    func startsWithoutLibcurlLibpulseOrFFmpeg(binary: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_TRACE_LOADED_OBJECTS"] = "1"
        let traced = try runTool(AppHarness.binary(binary).path, [], environment: environment)
        #expect(traced.status == 0, "\(traced.stderr)")
        // One line per object: "\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x...)".
        let loaded = traced.stdout.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        #expect(loaded.contains { $0.hasPrefix("libsqlite3.so") }, "the trace lists no libsqlite3: \(loaded)")
        let early = loaded.filter { ["libcurl", "libpulse", "libav", "libswresample"].contains(where: $0.hasPrefix) }
        #expect(early.isEmpty, "\(binary) loads \(early) at start")
    }
}
