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
            for _ in 0..<600 where !seen().contains("watching crated at") { usleep(50_000) }   // hang guard

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
