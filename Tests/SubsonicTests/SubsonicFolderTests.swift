import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// Folder browsing (getIndexes, getMusicDirectory), songs by genre, and artist and album info.
@Suite(.promptly) struct SubsonicFolderTests {
    @Test func foldersAreArtistsAlbumsAndSongs() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-folders")
        let record = try fixture.album("Record")
        try await fixture.test { client in
            func get(_ endpoint: String, _ extra: [(String, String)] = []) async throws -> [String: Any] {
                let answer = try envelope(try await client.execute(uri: "/rest/\(endpoint)?" + alice(extra), method: .get))
                #expect(answer["status"] as? String == "ok", "\(endpoint): \(answer)")
                return answer
            }
            let indexes = try #require(try await get("getIndexes")["indexes"] as? [String: Any])
            #expect(indexes["ignoredArticles"] as? String == "The A An")
            let modified = try #require(indexes["lastModified"] as? Int)
            let newest = max(record.addedAt, try fixture.album("Tape").addedAt)
            #expect(modified == Int((newest.timeIntervalSince1970 * 1000).rounded()))
            let index = indexes["index"] as? [[String: Any]] ?? []
            #expect(index.compactMap { $0["name"] as? String } == ["B", "O"])
            let band = try #require((index.first?["artist"] as? [[String: Any]])?.first)
            let bandID = try #require(band["id"] as? String)
            #expect(band["name"] as? String == "Band" && bandID.hasPrefix("ar-"))
            // Nothing new since: the answer has no artists, only the time.
            let unchanged = try #require(try await get("getIndexes", [("ifModifiedSince", String(modified))])["indexes"] as? [String: Any])
            #expect(unchanged["lastModified"] as? Int == modified && ((unchanged["index"] as? [Any])?.isEmpty ?? true))
            let older = try await get("getIndexes", [("ifModifiedSince", String(modified - 1))])["indexes"] as? [String: Any]
            #expect((older?["index"] as? [Any])?.count == 2)

            // An artist's folder holds their albums as folders; an album's its songs.
            let artist = try #require(try await get("getMusicDirectory", [("id", bandID)])["directory"] as? [String: Any])
            #expect(artist["id"] as? String == bandID && artist["name"] as? String == "Band")
            let albums = try #require(artist["child"] as? [[String: Any]])
            #expect(albums.count == 1)
            #expect(albums[0]["id"] as? String == "al-\(record.id)" && albums[0]["isDir"] as? Bool == true)
            #expect(albums[0]["title"] as? String == "Record" && albums[0]["parent"] as? String == bandID)
            let album = try #require(try await get("getMusicDirectory", [("id", "al-\(record.id)")])["directory"] as? [String: Any])
            #expect(album["name"] as? String == "Record" && album["parent"] as? String == bandID)
            let songs = try #require(album["child"] as? [[String: Any]])
            #expect(songs.compactMap { $0["title"] as? String } == ["Song 1", "Song 2"])
            #expect(songs.allSatisfy { $0["isDir"] as? Bool == false && $0["parent"] as? String == "al-\(record.id)" })

            // In XML, as DSub reads it: <directory><child …/></directory>.
            let xml = try await client.execute(uri: "/rest/getMusicDirectory.view?" + alice([("id", "al-\(record.id)")], format: "xml"),
                                               method: .get)
            let root = try XMLElementNode.parse(String(buffer: xml.body))
            #expect(root.first("directory")?.all("child").compactMap { $0.attributes["title"] } == ["Song 1", "Song 2"])

            func code(_ extra: [(String, String)]) async throws -> Int? {
                try errorCode(try await client.execute(uri: "/rest/getMusicDirectory?" + alice(extra), method: .get))
            }
            #expect(try await code([]) == 10)
            #expect(try await code([("id", "ar-999999")]) == 70)
            #expect(try await code([("id", "al-999999")]) == 70)
            #expect(try await code([("id", "tr-1")]) == 70)
        }
    }

    @Test func songsByGenrePageByPage() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-genre-songs")
        // Every check sits in #expect, so the closure is marked as throwing: nothing outside a macro says so.
        try await fixture.test { client throws in
            func titles(_ extra: [(String, String)]) async throws -> [String] {
                let answer = try envelope(try await client.execute(uri: "/rest/getSongsByGenre?" + bob(extra), method: .get))
                return ((answer["songsByGenre"] as? [String: Any])?["song"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
            }
            #expect(try await titles([("genre", "Rock")]) == ["Song 1", "Song 2"])
            #expect(try await titles([("genre", "rock"), ("count", "1"), ("offset", "1")]) == ["Song 2"])
            // Each value of a multi-valued genre counts.
            #expect(try await titles([("genre", "Blues")]) == ["Side <A> & \"B\""])
            #expect(try await titles([("genre", "Polka")]) == [])
            #expect(try await titles([("genre", "Rock"), ("count", "0")]) == [])
            #expect(try errorCode(try await client.execute(uri: "/rest/getSongsByGenre?" + bob(), method: .get)) == 10)
        }
    }

    @Test func artistAndAlbumInfoLinkTheirPictures() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-info")
        let record = try fixture.album("Record"), tape = try fixture.album("Tape")
        let band = try #require(try fixture.runtime.collection.albumArtists().first { $0.name == "Band" })
        let other = try #require(try fixture.runtime.collection.albumArtists().first { $0.name == "Other" })
        try await fixture.test { client in
            let answer = try envelope(try await client.execute(uri: "/rest/getArtistInfo2?" + alice([("id", "ar-\(band.id)")]), method: .get))
            let info = try #require(answer["artistInfo2"] as? [String: Any])
            #expect(info["biography"] as? String == "" && info["similarArtist"] == nil)
            let small = try #require(info["smallImageUrl"] as? String)
            let origin = "http://127.0.0.1:\(client.port)"
            #expect(small.hasPrefix("\(origin)/rest/getCoverArt?id=ar-\(band.id)&size=300&u=alice&p=enc%3A"))
            #expect((info["largeImageUrl"] as? String)?.contains("size=1200") == true)
            // The link works as it is: it signs in as the app did.
            let picture = try await client.execute(uri: String(small.dropFirst(origin.count)), method: .get)
            #expect(picture.status == .ok && picture.headers[.contentType] == "image/jpeg")

            // Behind a proxy: the forwarded scheme and host; a token sign-in is passed on as its token.
            let token = subsonicToken(SubsonicFixture.alicePassword, salt: "c0ffee")
            let proto = try #require(HTTPFields.Element.Name("X-Forwarded-Proto"))
            let forwardedHost = try #require(HTTPFields.Element.Name("X-Forwarded-Host"))
            let proxied = try await client.execute(
                uri: "/rest/getAlbumInfo2?" + query([("u", "alice"), ("t", token), ("s", "c0ffee"), ("f", "json"), ("id", "al-\(record.id)")]),
                method: .get, headers: [proto: "https", forwardedHost: "music.example.org"])
            let album = try #require(try envelope(proxied)["albumInfo"] as? [String: Any])
            #expect(album["notes"] as? String == "")
            let medium = try #require(album["mediumImageUrl"] as? String)
            #expect(medium == "https://music.example.org/rest/getCoverArt?id=al-\(record.id)&size=600&u=alice&t=\(token)&s=c0ffee&v=1.16.1&c=crate")

            // No cover, no pictures; the legacy names answer the same.
            let bare = try envelope(try await client.execute(uri: "/rest/getAlbumInfo?" + alice([("id", "al-\(tape.id)")]), method: .get))
            #expect((bare["albumInfo"] as? [String: Any])?["smallImageUrl"] == nil)
            let otherInfo = try envelope(try await client.execute(uri: "/rest/getArtistInfo?" + alice([("id", "ar-\(other.id)")]), method: .get))
            #expect((otherInfo["artistInfo"] as? [String: Any])?["biography"] as? String == "")
            #expect((otherInfo["artistInfo"] as? [String: Any])?["largeImageUrl"] == nil)
            #expect(try errorCode(try await client.execute(uri: "/rest/getArtistInfo2?" + alice([("id", "ar-999999")]), method: .get)) == 70)
            #expect(try errorCode(try await client.execute(uri: "/rest/getAlbumInfo2?" + alice([("id", "ar-\(band.id)")]), method: .get)) == 70)
        }
    }
}
