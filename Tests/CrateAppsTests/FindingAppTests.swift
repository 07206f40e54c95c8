import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// Search, favorites and dislikes, playlists, sorting and home through the real CLI and daemon.
    @Suite struct FindingAppTests {
        struct SearchPage: Decodable { var groups: [Group] }
        struct Group: Decodable { var group: String; var total: Int }
        struct Detail: Decodable { var name: String; var entries: [PlaylistEntry]; var playlist: Playlist? }

        /// Three albums: FLAC by "The Beatles" (LYRICS, ARTISTSORT), MP3 by "Hélène" with real USLT lyrics,
        /// and a WAV album by "Abba".
        func makeMusic(_ app: AppHarness) throws -> URL {
            let music = app.home.appendingPathComponent("music")
            let beatles = music.appendingPathComponent("Beatles/Help"), helene = music.appendingPathComponent("Helene/Chansons")
            let abba = music.appendingPathComponent("Abba/Gold")
            for dir in [beatles, helene, abba] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
            for (n, title) in ["Hey Jude", "Yesterday"].enumerated() {
                try Fixture.encode(.flac, to: beatles.appendingPathComponent("0\(n + 1).flac"), frames: 4410, tags: [
                    "title": title, "artist": "The Beatles", "album": "Help", "date": "1965", "track": "\(n + 1)",
                    "LYRICS": n == 0 ? "Hey Jude, don't make it bad" : "All my troubles seemed so far away", "genre": "Rock"])
            }
            let mp3 = try Fixture.encode(.mp3, to: helene.appendingPathComponent("01.mp3"), frames: 22050)
            try ID3Tag.prepend(to: mp3, texts: [("TIT2", "Ma Chérie"), ("TPE1", "Hélène"), ("TALB", "Chansons"),
                                                ("TDRC", "1990"), ("TRCK", "1"), ("TSOP", "Helene")],
                               lyrics: "la nuit tombe sur la ville")
            try Fixture.encode(.wav, to: abba.appendingPathComponent("01.wav"), frames: 4410,
                               tags: ["title": "Waterloo", "artist": "Abba", "album": "Gold", "date": "1992"])
            return music
        }

        /// Track ids by title (the walk decides the import order).
        func trackIDs(_ app: AppHarness) throws -> [String: Int64] {
            let tracks = try decodeJSON([Track].self, try app.crate("tracks", "--json").stdout)
            return Dictionary(tracks.map { ($0.title, $0.id) }, uniquingKeysWith: { a, _ in a })
        }

        func albumIDs(_ app: AppHarness) throws -> [String: Int64] {
            let albums = try decodeJSON([Album].self, try app.crate("albums", "--json", "--disliked").stdout)
            return Dictionary(albums.map { ($0.title, $0.id) }, uniquingKeysWith: { a, _ in a })
        }

        @Test func searchFavoritesDislikesAndSortingFromTheCLI() throws {
            let app = try AppHarness()
            #expect(try app.crate("import", "--mode", "reference", try makeMusic(app).path).status == 0)
            let ids = try trackIDs(app)

            // Prefix on every word, across title and artist; grouped in the fixed order.
            let found = try decodeJSON(SearchPage.self, try app.crate("search", "jud", "bea", "--json").stdout)
            #expect(found.groups.map(\.group) == ["tracks"])
            let broad = try decodeJSON(SearchPage.self, try app.crate("search", "the", "--json").stdout)
            #expect(broad.groups.map(\.group) == ["artists", "albums", "tracks"].filter { g in broad.groups.contains { $0.group == g } })
            #expect(try app.crate("search", "hele").stdout.contains("Ma Chérie"))
            // Real USLT lyrics from the MP3 are indexed.
            #expect(try app.crate("search", "ville").stdout.contains("[ville]"))
            #expect(try app.crate("lyrics", "\(try #require(ids["Ma Chérie"]))").stdout.contains("la nuit tombe"))
            // Beets-style fields and sort.
            let sixties = try app.crate("search", "year:1960..1969", "--group", "tracks")
            #expect(sixties.stdout.contains("Hey Jude") && !sixties.stdout.contains("Waterloo"))
            let bad = try app.crate("search", "year:soon")
            #expect(bad.status != 0 && bad.stderr.contains("is not a year"))

            // Artist sort ignores "The" and uses sort tags: Abba, Beatles, Helene.
            let byArtist = try decodeJSON([Album].self, try app.crate("albums", "--sort", "artist", "--json").stdout)
            #expect(byArtist.map(\.title) == ["Gold", "Help", "Chansons"])
            let byYear = try decodeJSON([Album].self, try app.crate("albums", "--sort", "year", "--desc", "--json").stdout)
            #expect(byYear.map(\.year) == [1992, 1990, 1965])

            // Like and dislike exclude each other; disliked albums leave album lists.
            #expect(try app.crate("fav", "album", "Gold").status == 0)
            #expect(try app.crate("dislike", "Gold").stdout.contains("✗"))
            let listed = try app.crate("albums", "--json").stdout
            #expect(!listed.contains("\"Gold\""))
            #expect(try app.crate("albums", "--disliked").stdout.contains("✗ Abba — Gold"))
            #expect(try app.crate("fav", "album", "Gold").status == 0)
            #expect(try app.crate("dislike").stdout.contains("No disliked albums."))
            #expect(try app.crate("albums", "--sort", "title", "--favorites-first").stdout.split(separator: "\n").first?
                .contains("♥ Abba — Gold") == true)
            let dislikeTrack = try app.crate("fav", "track", "99")
            #expect(dislikeTrack.status != 0 && dislikeTrack.stderr.contains("no track has id 99"))

            // Album-artist browse.
            #expect(try app.crate("artists").stdout.split(separator: "\n").map { $0.contains("Abba") } == [true, false, false])
            #expect(try app.crate("artists", "beatles").stdout.contains("The Beatles — Help"))
        }

        @Test func playlistsRoundTripThroughM3UAndPlayFromTheDaemon() throws {
            let app = try AppHarness()
            #expect(try app.crate("import", "--mode", "reference", try makeMusic(app).path).status == 0)
            #expect(try app.crate("playlist", "create", "Mix").stdout.contains("Created playlist 1"))
            #expect(try app.crate("playlist", "add", "mix", "--album", "Help").status == 0)
            let ids = try trackIDs(app)
            let cherie = try #require(ids["Ma Chérie"]), jude = try #require(ids["Hey Jude"])
            #expect(try app.crate("playlist", "add", "mix", "\(cherie)", "\(jude)", "--at", "2").status == 0)
            #expect(try app.crate("playlist", "move", "mix", "4", "1").status == 0)
            let entries = try decodeJSON([PlaylistEntry].self, try app.crate("playlist", "show", "mix", "--json").stdout)
            #expect(entries.map(\.track.title) == ["Yesterday", "Hey Jude", "Ma Chérie", "Hey Jude"])

            let file = app.home.appendingPathComponent("mix.m3u8")
            #expect(try app.crate("playlist", "export", "mix", file.path).stdout.contains("Wrote 4 tracks"))
            try (String(contentsOf: file, encoding: .utf8) + "/nowhere/gone.flac\nhttp://radio.example/stream\n")
                .write(to: file, atomically: true, encoding: .utf8)
            let imported = try app.crate("playlist", "import", file.path, "--name", "Copy")
            #expect(imported.stdout.contains("4 tracks added, 2 skipped"), "\(imported.stdout)\(imported.stderr)")
            let copy = try decodeJSON([PlaylistEntry].self, try app.crate("playlist", "show", "Copy", "--json").stdout)
            #expect(copy.map(\.track.id) == entries.map(\.track.id))
            let again = try app.crate("playlist", "import", file.path, "--name", "copy")
            #expect(again.status != 0 && again.stderr.contains("exists already"))

            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            defer { daemon.stop() }
            let before = try decodeJSON([Playlist].self, try app.crate("playlist", "list", "--json").stdout)
            #expect(before.allSatisfy { $0.lastPlayedAt == nil })
            #expect(try app.crate("playlist", "play", "Mix", "--from", "2", env: daemon.env).status == 0)
            let queue = try app.crate("queue", "--json", env: daemon.env).stdout
            #expect(queue.contains("\"playlistID\" : 1"), "\(queue)")
            let after = try decodeJSON([Playlist].self, try app.crate("playlist", "list", "--sort", "last_played", "--desc", "--json").stdout)
            #expect(after.first?.name == "Mix" && after.first?.lastPlayedAt != nil && after.last?.lastPlayedAt == nil)
            // The null output plays at once: the queue finishes and every play is counted.
            try app.waitFor(daemon) { $0.state == .stopped }
            let home = try decodeJSON(Home.self, try app.crate("home", "--json").stdout)
            #expect(home.recentItems.first?.playlist?.name == "Mix")
            #expect(home.recentPlays.count == 3)
            #expect(home.topArtistsBasis == "top" && home.topArtists.first?.artist.name == "The Beatles")
        }

        /// Issue 16, item 6: a playlist exported from one library imports into another whose files live elsewhere
        /// (matched by #EXTINF artist, title and length: it matched none); Windows backslash paths resolve; each
        /// cause of a skip has its own reason; a taken name is answered in the API's terms over HTTP and in flags by
        /// the CLI.
        @Test func aPlaylistFromAnotherLibraryMatchesByTagsAndLength() throws {
            let first = try AppHarness()
            #expect(try first.crate("import", "--mode", "reference", try makeMusic(first).path).status == 0)
            #expect(try first.crate("playlist", "create", "Mix").status == 0)
            for album in ["Help", "Chansons", "Gold"] { #expect(try first.crate("playlist", "add", "mix", "--album", album).status == 0) }
            let exported = first.home.appendingPathComponent("mix.m3u8")
            #expect(try first.crate("playlist", "export", "mix", exported.path).stdout.contains("Wrote 4 tracks"))

            let second = try AppHarness()
            let music = try makeMusic(second)
            #expect(try second.crate("import", "--mode", "reference", music.path).status == 0)
            let stray = music.appendingPathComponent("stray.flac")
            try Fixture.encode(.flac, to: stray, frames: 4410, tags: ["title": "Stray"])
            let file = second.home.appendingPathComponent("lists/mix.m3u")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            var bytes = [UInt8](try Data(contentsOf: exported))
            // Lines a Windows player wrote (relative with backslashes, and a drive path), one of them in Latin-1
            // while the rest of the file is UTF-8, and the causes of a skip, one each.
            bytes += Array("..\\music\\Beatles\\Help\\01.flac\n".utf8)
            bytes += Array("#EXTINF:1,Hélène - Ma Chérie\nC:\\Users\\me\\Music\\Chansons\\01-".utf8) + [0xE9] + Array(".mp3\n".utf8)
            bytes += Array("D:\\Music\\Nobody\\Nothing\\01.flac\n/nowhere/gone.flac\nhttp://radio.example/stream\n\(stray.path)\n".utf8)
            bytes += Array("#EXTINF:100,Nobody - Nothing\n/nowhere/nothing.flac\n".utf8)
            try Data(bytes).write(to: file)
            let imported = try second.crate("playlist", "import", file.path, "--json")
            struct Report: Decodable {
                struct Skipped: Decodable { var location: String; var reason: String }
                var added: Int; var matchedByTags: Int; var skipped: [Skipped]
            }
            let report = try decodeJSON(Report.self, imported.stdout)
            #expect(report.added == 6 && report.matchedByTags == 5, "\(imported.stdout)\(imported.stderr)")
            let reasons = Dictionary(report.skipped.map { ($0.location, $0.reason) }, uniquingKeysWith: { a, _ in a })
            #expect(reasons[#"D:\Music\Nobody\Nothing\01.flac"#]?.hasPrefix("a Windows path") == true, "\(reasons)")
            #expect(reasons["/nowhere/gone.flac"] == "no such file, and it has no #EXTINF \"Artist - Title\" to match by")
            #expect(reasons["/nowhere/nothing.flac"] == "no such file, and no library track has its #EXTINF artist, title and length")
            #expect(reasons["http://radio.example/stream"]?.hasPrefix("a stream URL") == true)
            #expect(reasons[stray.path] == "the file exists but is not in the library (import it first)")
            #expect(Set(reasons.values).count == 5 && report.skipped.count == 5)
            let entries = try decodeJSON([PlaylistEntry].self, try second.crate("playlist", "show", "mix", "--json").stdout)
            #expect(entries.map(\.track.title) == ["Hey Jude", "Yesterday", "Ma Chérie", "Waterloo", "Hey Jude", "Ma Chérie"])
            #expect(!(try second.crate("playlist", "import", file.path).stderr.contains("\"replace\"")))

            // A taken name: the API names its body's fields, the CLI (through the daemon) its flags.
            let daemon = try Daemon(second, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            defer { daemon.stop() }
            let taken = try SecurityTests.call(daemon.port, "POST", "/api/v1/playlists/import", headers: ["Content-Type": "application/json"],
                                               body: #"{"path":"\#(file.path)"}"#)
            #expect(taken.status == 409 && taken.errorMessage.contains("\"replace\": true") && !taken.errorMessage.contains("--"), "\(taken)")
            let cli = try second.crate("playlist", "import", file.path, env: daemon.env)
            #expect(cli.status != 0 && cli.stderr.contains("--replace"), "\(cli.stderr)")
        }

        @Test func theDaemonServesSearchFavoritesAndPlaylistsWithLibraryEvents() throws {
            let app = try AppHarness()
            #expect(try app.crate("import", "--mode", "reference", try makeMusic(app).path).status == 0)
            let albums = try albumIDs(app)
            let help = try #require(albums["Help"]), gold = try #require(albums["Gold"])
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null"])
            defer { daemon.stop() }
            let api = LibraryAppTests()
            let events = app.home.appendingPathComponent("watch.log")
            let watch = try ChildProcess([AppHarness.binary("crate").path, "watch"], environment: app.environment,
                                         extra: daemon.env, output: events)
            defer { watch.stop(signal: SIGTERM) }
            func seen() -> String { (try? String(contentsOf: events, encoding: .utf8)) ?? "" }
            try waitUntil("crate watch to connect", seconds: 30) { seen().contains("watching crated at") }

            let search = try api.curl(daemon, "GET", "search?q=hey%20jud")
            #expect(search.status == 200 && search.body.contains("\"group\":\"tracks\""))
            let paged = try api.curl(daemon, "GET", "search?q=h&group=tracks&limit=1&offset=1")
            let page = try decodeJSON(SearchPage.self, paged.body)
            #expect(page.groups.count == 1 && page.groups[0].total >= 3)
            #expect(try api.curl(daemon, "GET", "search?q=x&scope=external").status == 503)
            #expect(try api.curl(daemon, "GET", "search?q=year:x").status == 400)

            #expect(try api.curl(daemon, "PUT", "favorites/album/\(help)").body.contains("\"favorite\""))
            #expect(try api.curl(daemon, "PUT", "dislikes/albums/\(help)").body.contains("\"dislike\""))
            #expect(try api.curl(daemon, "GET", "favorites").body.contains("\"dislikedAlbums\":[{"))
            #expect(try api.curl(daemon, "PUT", "favorites/song/1").status == 400)
            #expect(try api.curl(daemon, "GET", "albums?sort=title&order=desc").body.contains("\"Help\"") == false)

            let made = try api.curl(daemon, "POST", "playlists", #"{"name":"Road"}"#)
            #expect(made.status == 200)
            let id = try #require(try decodeJSON(Detail.self, made.body).playlist?.id)
            _ = try api.curl(daemon, "POST", "playlists/\(id)/tracks", #"{"albumID":\#(gold)}"#)
            let moved = try api.curl(daemon, "POST", "playlists/\(id)/move", #"{"from":1,"to":1}"#)
            #expect(try decodeJSON(Detail.self, moved.body).entries.count == 1)
            #expect(try api.curl(daemon, "GET", "playlists/\(id)/m3u").body.hasPrefix("#EXTM3U"))
            #expect(try api.curl(daemon, "POST", "playlists", #"{"name":"road"}"#).status == 400)
            #expect(try api.curl(daemon, "GET", "home").status == 200)
            #expect(try api.curl(daemon, "DELETE", "playlists/\(id)").status == 204)

            for _ in 0..<600 where !seen().contains("playlist \(id) deleted") { usleep(50_000) }   // hang guard
            #expect(seen().contains("album \(help): favorite") && seen().contains("album \(help): dislike")
                    && seen().contains("playlist \(id) deleted"), "\(seen())")
        }
    }
}
