import CrateCore
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// Signing in: the parameters read (plain, `enc:` hex, token and salt, API key) and the spec's error codes for what
/// is missing, conflicting or wrong, then each way through the router against real accounts.
@Suite(.promptly) struct SubsonicAuthTests {
    @Test func encodedPasswordsAreHexOfUTF8() throws {
        #expect(try SubsonicAuth.decodePassword("enc:736573616d65") == "sesame")
        #expect(try SubsonicAuth.decodePassword("enc:C3A9") == "é")
        #expect(try SubsonicAuth.decodePassword("plain enc:") == "plain enc:")
        #expect(throws: SubsonicAuth.wrongPassword) { try SubsonicAuth.decodePassword("enc:7") }
        #expect(throws: SubsonicAuth.wrongPassword) { try SubsonicAuth.decodePassword("enc:zz") }
        #expect(throws: SubsonicAuth.wrongPassword) { try SubsonicAuth.decodePassword("enc:ff") }
    }

    @Test func tokenIsMD5OfPasswordAndSalt() {
        // The spec's own example.
        #expect(subsonicToken("sesame", salt: "c19b2d") == "26719a1196d2a940705a59634eb18eab")
    }

    @Test func credentialsAndTheirErrorCodes() throws {
        func code(_ pairs: [(String, String)]) -> Int? {
            do {
                _ = try SubsonicAuth.credentials(SubsonicParameters(pairs))
                return nil
            } catch {
                return error.code.rawValue
            }
        }
        #expect(code([("u", "a"), ("p", "x")]) == nil)
        #expect(code([("u", "a"), ("t", "abc"), ("s", "salt")]) == nil)
        #expect(code([("apiKey", "k")]) == nil)
        #expect(code([]) == 42)
        #expect(code([("u", "a")]) == 10)
        #expect(code([("u", "a"), ("t", "abc")]) == 10)
        #expect(code([("p", "x")]) == 10)
        #expect(code([("apiKey", "k"), ("u", "a")]) == 43)
        #expect(code([("apiKey", "k"), ("p", "x")]) == 43)
        #expect(code([("u", "a"), ("p", "x"), ("t", "abc"), ("s", "salt")]) == 43)
        if case .token(let user, let token, let salt) = try SubsonicAuth.credentials(SubsonicParameters([("u", "a"), ("t", "ABC"), ("s", "s1")])) {
            #expect(user == "a" && token == "abc" && salt == "s1")
        } else {
            Issue.record("a token was expected")
        }
    }

    @Test func everyWayToSignInThroughTheRouter() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-auth")
        let key = try fixture.runtime.accounts.newAPIKey(name: "bob")
        try await fixture.test { client in
            func ping(_ query: String) async throws -> Int? {
                try errorCode(try await client.execute(uri: "/rest/ping.view?\(query)", method: .get))
            }
            let common = [("v", "1.16.1"), ("c", "tests"), ("f", "json")]
            #expect(try await ping(alice()) == nil)
            let hex = Data(SubsonicFixture.bobPassword.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(try await ping(query([("u", "bob"), ("p", "enc:" + hex)] + common)) == nil)
            #expect(try await ping(query([("u", "bob"), ("t", subsonicToken(SubsonicFixture.bobPassword, salt: "a1b2c3d4")),
                                          ("s", "a1b2c3d4")] + common)) == nil)
            #expect(try await ping(query([("apiKey", key)] + common)) == nil)
            // Without v and c (some apps leave them out) and without .view.
            #expect(try errorCode(try await client.execute(
                uri: "/rest/ping?" + query([("u", "alice"), ("p", SubsonicFixture.alicePassword), ("f", "json")]), method: .get)) == nil)
            // Wrong: two in a row only, so the back-off (from the fourth) does not begin.
            #expect(try await ping(query([("u", "alice"), ("p", "wrong password")] + common)) == 40)
            #expect(try await ping(query([("u", "alice"), ("t", subsonicToken("wrong", salt: "s")), ("s", "s")] + common)) == 40)
            #expect(try await ping(query([("u", "nobody"), ("p", "whatever")] + common)) == 40)
            #expect(try await ping(query([("apiKey", "not-a-key")] + common)) == 44)
            #expect(try await ping(query([("apiKey", key), ("u", "bob")] + common)) == 43)
            #expect(try await ping(query(common)) == 42)
            #expect(try await ping(query([("u", "alice")] + common)) == 10)
            // A newer API than Crate speaks.
            #expect(try await ping(query([("u", "alice"), ("p", SubsonicFixture.alicePassword), ("v", "2.0.0"), ("f", "json")])) == 30)
            // The right password still works after the wrong ones.
            #expect(try await ping(alice()) == nil)

            // OpenSubsonic's formPost: the same parameters in a form body.
            let form = try await client.execute(uri: "/rest/ping.view", method: .post,
                                                headers: [.contentType: "application/x-www-form-urlencoded"],
                                                body: ByteBuffer(string: alice()))
            #expect(try errorCode(form) == nil)
            #expect(form.headers[.contentType]?.hasPrefix("application/json") == true)

            // XML by default, with the envelope's attributes; the failure carries code and message.
            let xml = try await client.execute(uri: "/rest/ping?" + query([("u", "alice"), ("p", "nope"), ("v", "1.16.1"), ("c", "t")]),
                                               method: .get)
            #expect(xml.status == .ok)
            #expect(xml.headers[.contentType]?.hasPrefix("text/xml") == true)
            let root = try XMLElementNode.parse(String(buffer: xml.body))
            #expect(root.name == "subsonic-response" && root.attributes["status"] == "failed" && root.attributes["type"] == "crate")
            #expect(root.first("error")?.attributes["code"] == "40")

            // The extensions are public (the spec says so), and list only what Crate does.
            let extensions = try envelope(try await client.execute(uri: "/rest/getOpenSubsonicExtensions?f=json", method: .get))
            let names = (extensions["openSubsonicExtensions"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["apiKeyAuthentication", "formPost", "songLyrics", "transcodeOffset"])
        }
    }
}
