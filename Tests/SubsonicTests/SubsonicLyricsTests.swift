import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// Lyrics by artist and title (getLyrics) and by song (getLyricsBySongId, the songLyrics extension), from the
/// files' own tags: LRC text as timed lines, anything else as plain lines.
@Suite(.promptly) struct SubsonicLyricsTests {
    static let lrc = "[ar:Singer]\n[ti:Timed]\n[00:00.50]First line\n\n[00:01.20][00:02.00]Chorus\n[00:01.5]Between"
    static let plain = "Just words\n\nand more words\n"

    @Test func lyricsFromTagsPlainAndTimed() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-lyrics")
        let folder = fixture.music.appendingPathComponent("Singer/Words")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try Fixture.encode(.flac, to: folder.appendingPathComponent("01.flac"), frames: 44100,
                               tags: ["title": "Timed", "artist": "Singer", "album": "Words", "track": "1", "lyrics": Self.lrc])
        _ = try Fixture.encode(.flac, to: folder.appendingPathComponent("02.flac"), frames: 44100,
                               tags: ["title": "Plain Song", "artist": "Singer", "album": "Words", "track": "2", "lyrics": Self.plain])
        _ = try fixture.runtime.library.importPaths([folder.path], mode: .reference)
        let tracks = try fixture.runtime.collection.tracks(albumID: try fixture.album("Words").id)
        let timed = try #require(tracks.first { $0.title == "Timed" }), plain = try #require(tracks.first { $0.title == "Plain Song" })
        let silent = try #require(try fixture.runtime.collection.tracks(albumID: try fixture.album("Record").id).first)
        try await fixture.test { client in
            func get(_ endpoint: String, _ extra: [(String, String)]) async throws -> [String: Any] {
                let answer = try envelope(try await client.execute(uri: "/rest/\(endpoint)?" + bob(extra), method: .get))
                #expect(answer["status"] as? String == "ok", "\(endpoint): \(answer)")
                return answer
            }
            func structured(_ id: Int64) async throws -> [[String: Any]] {
                let answer = try await get("getLyricsBySongId", [("id", "tr-\(id)")])
                return (answer["lyricsList"] as? [String: Any])?["structuredLyrics"] as? [[String: Any]] ?? []
            }
            let synced = try #require(try await structured(timed.id).first)
            #expect(synced["synced"] as? Bool == true && synced["lang"] as? String == "und")
            #expect(synced["displayArtist"] as? String == "Singer" && synced["displayTitle"] as? String == "Timed")
            let lines = try #require(synced["line"] as? [[String: Any]])
            #expect(lines.compactMap { $0["value"] as? String } == ["First line", "Chorus", "Between", "Chorus"])
            #expect(lines.compactMap { $0["start"] as? Int } == [500, 1200, 1500, 2000])

            let unsynced = try #require(try await structured(plain.id).first)
            #expect(unsynced["synced"] as? Bool == false)
            let plainLines = try #require(unsynced["line"] as? [[String: Any]])
            #expect(plainLines.compactMap { $0["value"] as? String } == ["Just words", "", "and more words"])
            #expect(plainLines.allSatisfy { $0["start"] == nil })

            #expect(try await structured(silent.id).isEmpty)
            #expect(try errorCode(try await client.execute(uri: "/rest/getLyricsBySongId?" + bob([("id", "tr-999999")]), method: .get)) == 70)

            // By artist and title: the words without times, in any case.
            let found = try #require(try await get("getLyrics", [("artist", "singer"), ("title", "TIMED")])["lyrics"] as? [String: Any])
            #expect(found["artist"] as? String == "Singer" && found["title"] as? String == "Timed")
            #expect(found["value"] as? String == "First line\nChorus\nBetween\nChorus")
            let byTitle = try await get("getLyrics", [("title", "Plain Song")])["lyrics"] as? [String: Any]
            #expect(byTitle?["value"] as? String == "Just words\n\nand more words")
            let none = try await get("getLyrics", [("artist", "Band"), ("title", "Song 1")])["lyrics"] as? [String: Any]
            #expect(none?["value"] as? String == "" && none?["artist"] == nil)
            let nothing = try await get("getLyrics", [])["lyrics"] as? [String: Any]
            #expect(nothing?["value"] as? String == "")

            // XML: each line's words are its text, the time an attribute.
            let xml = try await client.execute(uri: "/rest/getLyricsBySongId.view?" + bob([("id", "tr-\(timed.id)")], format: "xml"), method: .get)
            let root = try XMLElementNode.parse(String(buffer: xml.body))
            let first = root.first("lyricsList")?.first("structuredLyrics")?.all("line").first
            #expect(first?.text == "First line" && first?.attributes["start"] == "500")
        }
    }

    @Test func lrcIsReadAsTimedLines() {
        let offset = LyricsLines("[offset:+300]\n[00:01.00]One\n[01:02.345]Two\n[00:00.10]Zero")
        #expect(offset.synced && offset.lines == [.init(start: 0, text: "Zero"), .init(start: 700, text: "One"), .init(start: 62_045, text: "Two")])
        #expect(LyricsLines("[00:03:50]Colon hundredths").lines == [.init(start: 3500, text: "Colon hundredths")])
        // A line with words and no time: not LRC, every line as it is.
        let mixed = LyricsLines("[00:01.00]Timed\nUntimed")
        #expect(!mixed.synced && mixed.lines.map(\.text) == ["[00:01.00]Timed", "Untimed"])
        // Brackets that are not times are words.
        #expect(!LyricsLines("[Chorus]\nLa la").synced)
        #expect(!LyricsLines("").synced && LyricsLines("").lines.isEmpty)
        #expect(LyricsLines("a\r\nb\rc").lines.map(\.text) == ["a", "b", "c"])
        #expect(LyricsLines.milliseconds("00:61") == nil && LyricsLines.milliseconds("61:00") == 3_660_000)
        #expect(LyricsLines.milliseconds("00:01.5") == 1500 && LyricsLines.milliseconds("00:01.05") == 1050)
    }
}
