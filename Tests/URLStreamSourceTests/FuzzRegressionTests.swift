import Foundation
import Testing
@testable import URLStreamSource

/// Inputs the fuzzer (`scripts/fuzz.sh RadioPlaylist`) found crashing the radio playlist reader; each is also a seed
/// in Fuzz/RadioPlaylist/seeds/. A playlist is whatever a station's server sends, so none may take the daemon down.
@Suite struct RadioPlaylistFuzzRegressionTests {
    let base = URL(string: "http://radio.example/stations/list.xspf")!

    /// Foundation's XMLParser (Linux) crashed on these: a processing instruction without data (`<?m?>`, a NULL its
    /// callback hands to strlen), and bytes that are not UTF-8 in a comment or a tag name (a force unwrap). XSPF is
    /// now read by a scanner of Crate's own; these are refused in words, or give the location they hold.
    @Test func processingInstructionWithoutDataIsRefusedInWords() {
        for input in ["<?m?><playlist", "<playlist><?m?></playlist>"] {
            #expect(throws: RadioPlaylist.Problem.empty) { try RadioPlaylist.entries(Data(input.utf8), base: base) }
        }
    }

    @Test func theFuzzersOwnCrashingInputIsRefusedInWords() {
        // Fuzz/RadioPlaylist/seeds/crash-xml-pi-without-data-found, as the fuzzer wrote it.
        let input = Data(base64Encoded: """
            PD94bWz//////////zBuMT0uIiBlbmNvZGluZz0iVVRGLTgiPz4KPHBsYXlsaXN0IHZvY2F0aW9uPjwvdHJhY2Vyc2lvblsiMSIg\
            eEBsbnM9Imh0dHA6Ly94c3BmLm9yZy9ucy8wLyI+PHRyYaNrTD1pc3RhbXBsZS94Lm9nZzwvbG9jYXRpb24+PC90cmFjaz48dHJh\
            Y2s+PD94bWw8oGxvY2F0aW9uPiBodHRwczovL2QgLmV4dg==
            """)
        #expect(input?.count == 184)
        #expect(throws: RadioPlaylist.Problem.empty) { try RadioPlaylist.entries(input ?? Data(), base: base) }
    }

    @Test func bytesThatAreNotUTF8InACommentOrANameDoNotHideTheLocation() throws {
        for prefix: [UInt8] in [Array("<playlist><!-- ".utf8) + [0xFF, 0xFE] + Array(" -->".utf8),
                                Array("<playlist><pl".utf8) + [0xFF] + Array("a/>".utf8)] {
            let input = Data(prefix + Array("<location>http://a.example/x</location></playlist>".utf8))
            #expect(try RadioPlaylist.entries(input, base: base) == [URL(string: "http://a.example/x")!])
        }
    }

    /// What XMLParser read, the scanner reads: entities, CDATA, comments and processing instructions skipped, `>`
    /// inside an attribute value, relative locations resolved, a `<location>` never closed dropped.
    @Test func xspfLocationsAreReadAroundWhatCrashedXMLParser() throws {
        let xspf = """
            <?xml version="1.0" encoding="UTF-8"?><?m?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/"><!-- <location>http://comment.example/</location> -->
            <trackList><track title="a > b"><location> https://d.example/x?a=1&amp;b=&#50; </location></track>
            <track><location><![CDATA[http://cdata.example/&amp;]]></location></track>
            <track><location>relative.mp3</location></track><track><location>http://unclosed.example/
            """
        #expect(try RadioPlaylist.entries(Data(xspf.utf8), base: base) == [
            URL(string: "https://d.example/x?a=1&b=2")!, URL(string: "http://cdata.example/&amp;")!,
            URL(string: "http://radio.example/stations/relative.mp3")!,
        ])
    }
}
