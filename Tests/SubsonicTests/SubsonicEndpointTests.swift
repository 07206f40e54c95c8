import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// The endpoints over a real library and real accounts, through the router: browsing, lists, search, stars and
/// plays per person, media with byte ranges, cover art and the error codes.
@Suite(.promptly) struct SubsonicEndpointTests {
    @Test func browsingListsAndSearch() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-browse")
        let record = try fixture.album("Record"), tape = try fixture.album("Tape")
        try await fixture.test { client in
            func get(_ endpoint: String, _ extra: [(String, String)] = []) async throws -> [String: Any] {
                let answer = try envelope(try await client.execute(uri: "/rest/\(endpoint)?" + alice(extra), method: .get))
                #expect(answer["status"] as? String == "ok", "\(endpoint): \(answer)")
                return answer
            }
            let artists = try await get("getArtists")["artists"] as? [String: Any]
            let index = artists?["index"] as? [[String: Any]] ?? []
            #expect(index.compactMap { $0["name"] as? String } == ["B", "O"])
            let band = try #require((index.first?["artist"] as? [[String: Any]])?.first)
            #expect(band["name"] as? String == "Band" && band["albumCount"] as? Int == 1)
            let bandID = try #require(band["id"] as? String)
            #expect(bandID.hasPrefix("ar-"))
            // A cover only for an artist with a picture (Band's record has one, Other's tape none).
            #expect(band["coverArt"] as? String == bandID)
            let other = try #require((index.last?["artist"] as? [[String: Any]])?.first)
            #expect(other["name"] as? String == "Other" && other["coverArt"] == nil)

            let artist = try await get("getArtist", [("id", bandID)])["artist"] as? [String: Any]
            #expect((artist?["album"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["al-\(record.id)"])

            let album = try #require(try await get("getAlbum", [("id", "al-\(record.id)")])["album"] as? [String: Any])
            #expect(album["name"] as? String == "Record" && album["artist"] as? String == "Band" && album["artistId"] as? String == bandID)
            #expect(album["songCount"] as? Int == 2 && album["year"] as? Int == 2001 && album["genre"] as? String == "Rock")
            #expect(album["coverArt"] as? String == record.artworkHash && record.artworkHash != nil)
            let songs = try #require(album["song"] as? [[String: Any]])
            #expect(songs.compactMap { $0["title"] as? String } == ["Song 1", "Song 2"])
            let song = songs[0]
            #expect(song["isDir"] as? Bool == false && song["parent"] as? String == "al-\(record.id)" && song["albumId"] as? String == "al-\(record.id)")
            #expect(song["suffix"] as? String == "flac" && song["contentType"] as? String == "audio/flac" && song["type"] as? String == "music")
            #expect(song["track"] as? Int == 1 && song["duration"] as? Int == 1 && song["artistId"] as? String == bandID)
            #expect(song["path"] as? String == "Band/Record/01 - Song 1.flac")
            let songID = try #require(song["id"] as? String)
            let trackPath = try #require(try fixture.runtime.collection.tracks(albumID: record.id).first?.path)
            #expect(song["size"] as? Int == SubsonicItems.fileSize(trackPath))
            #expect((try await get("getSong", [("id", songID)])["song"] as? [String: Any])?["title"] as? String == "Song 1")

            let genres = (try await get("getGenres")["genres"] as? [String: Any])?["genre"] as? [[String: Any]] ?? []
            #expect(genres.compactMap { $0["value"] as? String } == ["Blues", "Jazz", "Rock"])
            #expect(genres.first { $0["value"] as? String == "Rock" }?["songCount"] as? Int == 2)
            #expect(genres.map { $0["albumCount"] as? Int } == [1, 1, 1] && genres.map { $0["songCount"] as? Int } == [1, 1, 2])

            // Album lists of each type.
            func list(_ type: String, _ extra: [(String, String)] = [], legacy: Bool = false) async throws -> [String] {
                let answer = try await get(legacy ? "getAlbumList" : "getAlbumList2", [("type", type)] + extra)
                return ((answer[legacy ? "albumList" : "albumList2"] as? [String: Any])?["album"] as? [[String: Any]])?
                    .compactMap { $0["name"] as? String } ?? []
            }
            #expect(try await list("alphabeticalByName") == ["Record", "Tape"])
            #expect(try await list("alphabeticalByArtist") == ["Record", "Tape"])
            #expect(try await list("alphabeticalByName", legacy: true) == ["Record", "Tape"])
            #expect(try await list("alphabeticalByName", [("size", "1"), ("offset", "1")]) == ["Tape"])
            #expect(try await list("alphabeticalByArtist", [("size", "1"), ("offset", "1")]) == ["Tape"])
            #expect(try await list("newest", [("size", "1"), ("offset", "2")]) == [])
            #expect(try await list("byGenre", [("genre", "ROCK"), ("size", "1"), ("offset", "1")]) == [])
            #expect(Set(try await list("random")) == ["Record", "Tape"])
            #expect(Set(try await list("newest")) == ["Record", "Tape"])
            #expect(try await list("byYear", [("fromYear", "1990"), ("toYear", "2000")]) == ["Tape"])
            #expect(try await list("byYear", [("fromYear", "2010"), ("toYear", "1990")]) == ["Record", "Tape"])
            #expect(try await list("byGenre", [("genre", "jazz")]) == ["Tape"])
            #expect(try await list("starred") == [])
            #expect(try await list("frequent") == [])
            #expect(try await list("highest") == [])
            #expect(try errorCode(try await client.execute(uri: "/rest/getAlbumList2?" + alice([("type", "best")]), method: .get)) == 0)

            let random = (try await get("getRandomSongs", [("size", "2")])["randomSongs"] as? [String: Any])?["song"] as? [[String: Any]]
            #expect(random?.count == 2)
            let jazz = (try await get("getRandomSongs", [("genre", "Jazz")])["randomSongs"] as? [String: Any])?["song"] as? [[String: Any]]
            #expect(jazz?.compactMap { $0["title"] as? String } == ["Side <A> & \"B\""])
            func randomTitles(_ extra: [(String, String)]) async throws -> [String] {
                let answer = try await get("getRandomSongs", extra)["randomSongs"] as? [String: Any]
                return ((answer?["song"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []).sorted()
            }
            #expect(try await randomTitles([("fromYear", "2000")]) == ["Song 1", "Song 2"])
            #expect(try await randomTitles([("toYear", "1999")]) == ["Side <A> & \"B\""])
            #expect(try await randomTitles([("fromYear", "2001"), ("toYear", "1999")]) == [])
            #expect(try await randomTitles([("genre", "blues"), ("fromYear", "1999"), ("toYear", "1999")]) == ["Side <A> & \"B\""])
            #expect(try await randomTitles([("genre", "Blu")]) == [])

            // Search: words, and "" (everything) paged.
            let found = try await get("search3", [("query", "tape")])["searchResult3"] as? [String: Any]
            #expect((found?["album"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Tape"])
            var titles: [String] = []
            for offset in 0..<4 {
                let page = try await get("search3", [("query", "\"\""), ("songCount", "1"), ("songOffset", String(offset)),
                                                     ("albumCount", "0"), ("artistCount", "0")])["searchResult3"] as? [String: Any]
                titles += (page?["song"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
                #expect(page?["album"] == nil || (page?["album"] as? [Any])?.isEmpty == true)
            }
            #expect(titles.sorted() == ["Side <A> & \"B\"", "Song 1", "Song 2"])
            let everything = try await get("search2", [("query", "")])["searchResult2"] as? [String: Any]
            #expect((everything?["album"] as? [[String: Any]])?.count == 2 && (everything?["song"] as? [[String: Any]])?.count == 3)
            #expect((everything?["album"] as? [[String: Any]])?.first?["isDir"] as? Bool == true)

            // The same album in XML: well-formed, the title's markup escaped and read back.
            let xml = try await client.execute(uri: "/rest/getAlbum.view?" + alice([("id", "al-\(tape.id)")], format: "xml"), method: .get)
            let root = try XMLElementNode.parse(String(buffer: xml.body))
            #expect(root.first("album")?.first("song")?.attributes["title"] == "Side <A> & \"B\"")
            #expect(root.first("album")?.all("genres").compactMap { $0.attributes["name"] } == ["Jazz", "Blues"])
        }
    }

    @Test func starsRatingsAndPlaysArePerPerson() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-annotate")
        let record = try fixture.album("Record")
        let track = try #require(try fixture.runtime.collection.tracks(albumID: record.id).first)
        try await fixture.test { client in
            func call(_ endpoint: String, _ extra: [(String, String)], as who: ([(String, String)], String) -> String = alice)
                async throws -> [String: Any] {
                try envelope(try await client.execute(uri: "/rest/\(endpoint)?" + who(extra, "json"), method: .get))
            }
            #expect(try await call("star", [("id", "tr-\(track.id)"), ("albumId", "al-\(record.id)")])["status"] as? String == "ok")
            let starred = try #require(try await call("getStarred2", [])["starred2"] as? [String: Any])
            #expect((starred["song"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["tr-\(track.id)"])
            #expect((starred["album"] as? [[String: Any]])?.first?["starred"] as? String != nil)
            // alice is the owner: her stars are Crate's favorites.
            #expect(try fixture.runtime.collection.opinion(.track, id: track.id) == .favorite)
            // bob has his own.
            let bobs = try await call("getStarred2", [], as: bob)["starred2"] as? [String: Any]
            #expect((bobs?["song"] as? [Any])?.isEmpty ?? true)
            #expect(try await call("unstar", [("id", "tr-\(track.id)")])["status"] as? String == "ok")
            #expect(try fixture.runtime.collection.opinion(.track, id: track.id) == nil)
            // An unknown id changes nothing and says so.
            let unknown = try await client.execute(uri: "/rest/star?" + alice([("id", "tr-999999")]), method: .get)
            #expect(try errorCode(unknown) == 70)

            #expect(try await call("setRating", [("id", "al-\(record.id)"), ("rating", "4")], as: bob)["status"] as? String == "ok")
            let highest = try await call("getAlbumList2", [("type", "highest")], as: bob)["albumList2"] as? [String: Any]
            #expect((highest?["album"] as? [[String: Any]])?.first?["userRating"] as? Int == 4)
            #expect(try errorCode(try await client.execute(uri: "/rest/setRating?" + bob([("id", "al-\(record.id)"), ("rating", "9")]),
                                                           method: .get)) == 0)

            #expect(try await call("scrobble", [("id", "tr-\(track.id)"), ("time", "1700000000000")], as: bob)["status"] as? String == "ok")
            let song = try await call("getSong", [("id", "tr-\(track.id)")], as: bob)["song"] as? [String: Any]
            #expect(song?["playCount"] as? Int == 1)
            let alicesSong = try await call("getSong", [("id", "tr-\(track.id)")])["song"] as? [String: Any]
            #expect(alicesSong?["playCount"] as? Int == 0)
            let frequent = try await call("getAlbumList2", [("type", "frequent")], as: bob)["albumList2"] as? [String: Any]
            #expect((frequent?["album"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Record"])
        }
    }

    @Test func streamsDownloadsAndCoverArt() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-media")
        let record = try fixture.album("Record")
        let track = try #require(try fixture.runtime.collection.tracks(albumID: record.id).first)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try #require(track.path)))
        try await fixture.test { client in
            let whole = try await client.execute(uri: "/rest/stream?" + alice([("id", "tr-\(track.id)")]), method: .get)
            #expect(whole.status == .ok)
            #expect(Data(whole.body.readableBytesView) == bytes)
            #expect(whole.headers[.contentType] == "audio/flac" && whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.contentLength] == String(bytes.count))

            let part = try await client.execute(uri: "/rest/stream.view?" + alice([("id", "tr-\(track.id)")]), method: .get,
                                                headers: [.range: "bytes=100-1123"])
            #expect(part.status == .partialContent)
            #expect(Data(part.body.readableBytesView) == bytes[100...1123])
            #expect(part.headers[.contentRange] == "bytes 100-1123/\(bytes.count)")
            let tail = try await client.execute(uri: "/rest/download?" + alice([("id", "tr-\(track.id)")]), method: .get,
                                                headers: [.range: "bytes=-10"])
            #expect(Data(tail.body.readableBytesView) == bytes.suffix(10))
            #expect(tail.headers[.contentDisposition]?.hasPrefix("attachment") == true)
            let beyond = try await client.execute(uri: "/rest/stream?" + alice([("id", "tr-\(track.id)")]), method: .get,
                                                  headers: [.range: "bytes=\(bytes.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(bytes.count)")
            // A missing song is an error in the envelope, not a broken download.
            let missing = try await client.execute(uri: "/rest/stream?" + alice([("id", "tr-999999")]), method: .get)
            #expect(try errorCode(missing) == 70)

            let hash = try #require(record.artworkHash)
            let original = try fixture.runtime.library.artworkFile(hash: hash)
            for id in ["al-\(record.id)", "tr-\(track.id)", hash] {
                let cover = try await client.execute(uri: "/rest/getCoverArt?" + alice([("id", id)]), method: .get)
                #expect(cover.status == .ok && cover.headers[.contentType] == original.mimeType, "\(id)")
                #expect(Data(cover.body.readableBytesView) == (try Data(contentsOf: original.url)), "\(id)")
            }
            let small = try await client.execute(uri: "/rest/getCoverArt?" + alice([("id", "al-\(record.id)"), ("size", "32")]), method: .get)
            #expect(small.headers[.contentType] == "image/jpeg" && small.body.readableBytes > 0)
            let none = try await client.execute(uri: "/rest/getCoverArt?" + alice([("id", "al-\(try fixture.album("Tape").id)")]), method: .get)
            #expect(try errorCode(none) == 70)
        }
    }

    @Test func systemEndpointsAndErrorCodes() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-system")
        try await fixture.test { client in
            func code(_ uri: String) async throws -> Int? { try errorCode(try await client.execute(uri: uri, method: .get)) }
            #expect(try await code("/rest/getAlbum?" + alice()) == 10)
            #expect(try await code("/rest/getAlbum?" + alice([("id", "al-999999")])) == 70)
            #expect(try await code("/rest/getAlbum?" + alice([("id", "tr-1")])) == 70)
            #expect(try await code("/rest/startScan?" + bob()) == 50)
            #expect(try await code("/rest/getUser?" + bob([("username", "alice")])) == 50)
            #expect(try await code("/rest/noSuchThing?" + alice()) == 0)

            let license = try envelope(try await client.execute(uri: "/rest/getLicense?" + bob(), method: .get))
            #expect((license["license"] as? [String: Any])?["valid"] as? Bool == true)
            let folders = try envelope(try await client.execute(uri: "/rest/getMusicFolders?" + bob(), method: .get))
            #expect(((folders["musicFolders"] as? [String: Any])?["musicFolder"] as? [[String: Any]])?.count == 1)
            let user = try envelope(try await client.execute(uri: "/rest/getUser?" + bob([("username", "bob")]), method: .get))
            #expect((user["user"] as? [String: Any])?["adminRole"] as? Bool == false)
            let scan = try envelope(try await client.execute(uri: "/rest/startScan?" + alice(), method: .get))
            #expect((scan["scanStatus"] as? [String: Any])?["scanning"] is Bool)
            let status = try envelope(try await client.execute(uri: "/rest/getScanStatus?" + bob(), method: .get))
            #expect((status["scanStatus"] as? [String: Any])?["count"] is Int)

            let playlist = try fixture.runtime.collection.createPlaylist(
                name: "Mine", trackIDs: try fixture.runtime.collection.tracks(albumID: try fixture.album("Record").id).map(\.id))
            // Crate's playlists are the owner's, private until made public.
            let hidden = try envelope(try await client.execute(uri: "/rest/getPlaylists?" + bob(), method: .get))
            let hiddenLists = (hidden["playlists"] as? [String: Any])?["playlist"] as? [[String: Any]] ?? []
            #expect(hiddenLists.isEmpty)
            let owner = try #require(try fixture.runtime.accounts.account(named: "alice"))
            try fixture.runtime.accountPlaylists.update(AccountPlaylists.Ref(.crate, playlist.id), isPublic: true, for: owner)
            let lists = try envelope(try await client.execute(uri: "/rest/getPlaylists?" + bob(), method: .get))
            let first = ((lists["playlists"] as? [String: Any])?["playlist"] as? [[String: Any]])?.first
            #expect(first?["id"] as? String == "pl-\(playlist.id)" && first?["owner"] as? String == "alice" && first?["songCount"] as? Int == 2)
            let detail = try envelope(try await client.execute(uri: "/rest/getPlaylist?" + bob([("id", "pl-\(playlist.id)")]), method: .get))
            #expect(((detail["playlist"] as? [String: Any])?["entry"] as? [[String: Any]])?.count == 2)

            _ = try fixture.runtime.collection.addStation(name: "Radio & Co", url: "http://radio.example/stream")
            let stations = try envelope(try await client.execute(uri: "/rest/getInternetRadioStations?" + bob(), method: .get))
            let station = ((stations["internetRadioStations"] as? [String: Any])?["internetRadioStation"] as? [[String: Any]])?.first
            #expect(station?["name"] as? String == "Radio & Co" && station?["streamUrl"] as? String == "http://radio.example/stream")
            #expect((station?["id"] as? String)?.hasPrefix("st-") == true)
        }
    }
}
