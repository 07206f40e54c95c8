import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Crypto
import Foundation
import Hummingbird
import HTTPTestSupport
import Logging
@testable import SubsonicFrontEnd
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A library of two albums of real FLAC files, imported by reference into a fresh data folder, with two accounts:
/// alice (the first: owner and admin) and bob (neither). Band/Record has a folder cover; Other/Tape has none.
struct SubsonicFixture: Sendable {
    static let alicePassword = "alice's secret"
    static let bobPassword = "bob's password é"

    let runtime: CrateRuntime
    let player: PlayerService
    let music: URL

    static func make(_ label: String) async throws -> SubsonicFixture {
        let dir = try Fixture.temporaryDirectory(label)
        let music = dir.appendingPathComponent("music")
        let record = music.appendingPathComponent("Band/Record"), tape = music.appendingPathComponent("Other/Tape")
        for folder in [record, tape] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for n in 1...2 {
            _ = try Fixture.encode(.flac, to: record.appendingPathComponent("0\(n).flac"), frames: 44100 + n * 441, frequency: 440 + Double(n) * 20,
                                   tags: ["title": "Song \(n)", "artist": "Band", "album": "Record", "track": "\(n)/2", "date": "2001",
                                          "genre": "Rock"])
        }
        _ = try Fixture.encode(.flac, to: tape.appendingPathComponent("01.flac"), frames: 22050, frequency: 330,
                               tags: ["title": "Side <A> & \"B\"", "artist": "Other", "album": "Tape", "track": "1", "date": "1999-05-01",
                                      "genre": "Jazz; Blues"])
        _ = try PictureFixture.jpeg(in: record)
        var settings = Settings(dataDirectory: dir.appendingPathComponent("data"))
        settings.output = "null"
        let runtime = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
        _ = try runtime.library.importPaths([music.path], mode: .reference)
        _ = try runtime.accounts.add(name: "alice", password: alicePassword)
        _ = try runtime.accounts.add(name: "bob", password: bobPassword)
        let player = try await PlayerService.start(runtime: runtime)
        return SubsonicFixture(runtime: runtime, player: player, music: music)
    }

    /// Runs `body` with a client of the router served on 127.0.0.1, then stops the player.
    func test(_ body: @Sendable (LoopbackClient) async throws -> Void) async throws {
        let router = SubsonicAPI.router(runtime: runtime, jobs: LibraryJobs(library: runtime.library, events: runtime.events),
                                        player: player, logger: Logger(label: "subsonic-test"))
        try await withLoopbackServer(router) { client in try await body(client) }
        await player.shutdown()
    }

    func album(_ title: String) throws -> Album {
        guard let album = try runtime.collection.albums().first(where: { $0.title == title }) else { throw FixtureError("no album \(title)") }
        return album
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// md5(password + salt) in lower-case hex: what an app sends as `t`.
func subsonicToken(_ password: String, salt: String) -> String {
    Insecure.MD5.hash(data: Data((password + salt).utf8)).map { String(format: "%02x", $0) }.joined()
}

/// Query strings for a request: `alice(…)` signs in with her password in clear.
func query(_ pairs: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
}

func alice(_ extra: [(String, String)] = [], format: String = "json") -> String {
    query([("u", "alice"), ("p", SubsonicFixture.alicePassword), ("v", "1.16.1"), ("c", "tests"), ("f", format)] + extra)
}

func bob(_ extra: [(String, String)] = [], format: String = "json") -> String {
    query([("u", "bob"), ("p", SubsonicFixture.bobPassword), ("v", "1.16.1"), ("c", "tests"), ("f", format)] + extra)
}

/// `subsonic-response` of a JSON answer.
func envelope(_ response: TestAnswer) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
    guard let envelope = object?["subsonic-response"] as? [String: Any] else {
        throw FixtureError("not a Subsonic JSON answer: \(String(buffer: response.body))")
    }
    return envelope
}

/// The error code of a JSON answer, nil when it succeeded.
func errorCode(_ response: TestAnswer) throws -> Int? {
    let answer = try envelope(response)
    guard answer["status"] as? String == "failed" else { return nil }
    return (answer["error"] as? [String: Any])?["code"] as? Int
}

/// An XML document read back with Foundation's parser: elements with their attributes, children and text.
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLElementNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func first(_ name: String) -> XMLElementNode? { children.first { $0.name == name } }
    func all(_ name: String) -> [XMLElementNode] { children.filter { $0.name == name } }

    /// Parses `text`; throws with the parser's error when it is not well-formed XML.
    static func parse(_ text: String) throws -> XMLElementNode {
        let reader = Reader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        guard parser.parse(), let root = reader.root else {
            throw FixtureError("not well-formed XML (\(parser.parserError.map { "\($0)" } ?? "no root")): \(text)")
        }
        return root
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var root: XMLElementNode?
        var stack: [XMLElementNode] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let node = XMLElementNode(name: elementName, attributes: attributes)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
    }
}
