import Foundation
@testable import SubsonicFrontEnd
import Testing

/// One value tree, two encodings: JSON as it looks, XML with scalars as attributes and objects and arrays as child
/// elements, both well-formed whatever the text holds, each read back with Foundation's own parsers.
@Suite struct SubsonicResponseTests {
    /// Text that breaks careless writers: markup, quotes, an ampersand, a line break, a tab, a control character,
    /// accents and an emoji, and a line separator (not allowed raw in JavaScript strings).
    static let awkward = "Side <A> & \"B\" 'c'\nline\ttab\u{01}é🎵\u{2028}"

    static var document: SubsonicObject {
        SubsonicEnvelope.document(SubsonicObject {
            $0["album"] = SubsonicObject { album in
                album["id"] = "al-1"
                album["name"] = awkward
                album["songCount"] = 2
                album["duration"] = 125.5
                album["isCompilation"] = false
                album["genres"] = [SubsonicObject { $0["name"] = "Rock" }, SubsonicObject { $0["name"] = "Jazz" }]
                album["song"] = [SubsonicObject { $0["id"] = "tr-1"; $0["title"] = "One" }]
            }
            $0["genre"] = SubsonicObject { $0["songCount"] = 3; $0["value"] = "Rock & Roll" }
            $0["versions"] = SubsonicValue.array([.int(1), .int(2)])
        })
    }

    @Test func jsonIsWhatItLooksLike() throws {
        let text = SubsonicRenderer.json(Self.document)
        #expect(!text.contains("\u{2028}"), "the line separator is escaped for JSONP")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let response = try #require(root["subsonic-response"] as? [String: Any])
        #expect(response["status"] as? String == "ok")
        #expect(response["version"] as? String == "1.16.1")
        #expect(response["type"] as? String == "crate")
        #expect(response["openSubsonic"] as? Bool == true)
        #expect(response["serverVersion"] as? String != nil)
        let album = try #require(response["album"] as? [String: Any])
        #expect(album["name"] as? String == Self.awkward)
        #expect(album["songCount"] as? Int == 2)
        #expect(album["duration"] as? Double == 125.5)
        #expect(album["isCompilation"] as? Bool == false)
        #expect((album["genres"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Rock", "Jazz"])
        #expect((album["song"] as? [[String: Any]])?.first?["id"] as? String == "tr-1")
        #expect((response["genre"] as? [String: Any])?["value"] as? String == "Rock & Roll")
        #expect(response["versions"] as? [Int] == [1, 2])
        // Field order is kept: the header first, then the payload.
        #expect(text.hasPrefix(#"{"subsonic-response":{"status":"ok","version":"1.16.1","type":"crate","#))
    }

    @Test func xmlIsWellFormedAndReadsBack() throws {
        let text = SubsonicRenderer.xml(Self.document)
        let root = try XMLElementNode.parse(text)
        #expect(root.name == "subsonic-response")
        #expect(root.attributes["status"] == "ok" && root.attributes["version"] == "1.16.1" && root.attributes["type"] == "crate")
        #expect(root.attributes["openSubsonic"] == "true")
        #expect(root.attributes["xmlns"] == "http://subsonic.org/restapi" || text.contains(#"xmlns="http://subsonic.org/restapi""#))
        let album = try #require(root.first("album"))
        // The control character cannot be carried by XML 1.0 and is dropped; everything else survives.
        #expect(album.attributes["name"] == Self.awkward.replacingOccurrences(of: "\u{01}", with: ""))
        #expect(album.attributes["songCount"] == "2" && album.attributes["duration"] == "125.5" && album.attributes["isCompilation"] == "false")
        #expect(album.all("genres").map { $0.attributes["name"] } == ["Rock", "Jazz"])
        #expect(album.all("song").map { $0.attributes["id"] } == ["tr-1"])
        let genre = try #require(root.first("genre"))
        #expect(genre.text == "Rock & Roll" && genre.attributes["songCount"] == "3" && genre.attributes["value"] == nil)
        #expect(root.all("versions").map(\.text) == ["1", "2"])
    }

    @Test func errorsGoInTheEnvelope() throws {
        let failed = SubsonicEnvelope.error(SubsonicError(.notFound, "album al-9 not found"))
        let root = try XMLElementNode.parse(SubsonicRenderer.xml(failed))
        #expect(root.attributes["status"] == "failed")
        #expect(root.first("error")?.attributes["code"] == "70")
        #expect(root.first("error")?.attributes["message"] == "album al-9 not found")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(SubsonicRenderer.json(failed).utf8)) as? [String: Any])
        let error = (json["subsonic-response"] as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 70)
    }

    @Test func formatsAndJSONPCallbacks() {
        #expect(SubsonicFormat(SubsonicParameters()) == .xml)
        #expect(SubsonicFormat(SubsonicParameters([("f", "json")])) == .json)
        #expect(SubsonicFormat(SubsonicParameters([("f", "jsonp"), ("callback", "app.got_1")])) == .jsonp(callback: "app.got_1"))
        // A callback that is not a plain name would let the caller choose the script: plain JSON instead.
        #expect(SubsonicFormat(SubsonicParameters([("f", "jsonp"), ("callback", "alert(1)//")])) == .json)
        #expect(SubsonicRenderer.jsonp(SubsonicEnvelope.document(SubsonicObject()), callback: "cb").hasPrefix("cb({\"subsonic-response\""))
    }

    @Test func parametersComeFromTheQueryAndTheFormAlike() throws {
        let pairs = SubsonicParameters.decodeForm("u=al%C3%AFce&p=a+b%26c&id=tr-1&id=tr-2&empty=&bad=%zz")
        let parameters = SubsonicParameters(pairs)
        #expect(parameters.string("u") == "alïce")
        #expect(parameters.string("p") == "a b&c")
        #expect(parameters.all("id") == ["tr-1", "tr-2"])
        #expect(parameters.string("bad") == "%zz")
        #expect(throws: SubsonicError.missing("empty")) { try parameters.required("empty") }
        #expect(throws: SubsonicError.invalid("u", "alïce", expected: "a whole number")) { try parameters.int("u", default: 0) }
        #expect(SubsonicParameters.endpoint(fromPath: "/rest/getAlbum.view") == "getAlbum")
        #expect(SubsonicParameters.endpoint(fromPath: "/rest/getAlbum") == "getAlbum")
        #expect(SubsonicParameters.endpoint(fromPath: "/api/v1/health") == nil)
    }

    @Test func idsNameTheirKind() throws {
        #expect(SubsonicID("al-12") == .album(12) && SubsonicID("tr-3") == .track(3) && SubsonicID("ar-0") == .artist(0))
        #expect(SubsonicID("12") == nil && SubsonicID("xx-1") == nil && SubsonicID("al-") == nil && SubsonicID("al--1") == nil)
        #expect(SubsonicID.album(7) == "al-7")
        #expect(throws: SubsonicError.self) { try SubsonicID.parse("tr-1", parameter: "id", as: .album) }
    }

    @Test func byteRanges() {
        #expect(ByteRange.parse(nil, size: 100) == .whole)
        #expect(ByteRange.parse("bytes=0-9", size: 100) == .part(0...9))
        #expect(ByteRange.parse("bytes=90-", size: 100) == .part(90...99))
        #expect(ByteRange.parse("bytes=90-500", size: 100) == .part(90...99))
        #expect(ByteRange.parse("bytes=-10", size: 100) == .part(90...99))
        #expect(ByteRange.parse("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 100) == .unsatisfiable)
        // What is not understood is answered with the whole file.
        #expect(ByteRange.parse("bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange.parse("items=0-1", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=9-2", size: 100) == .whole)
    }
}
