import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// What the household shares: the accounts (getUsers), who plays what (getNowPlaying) and the radio stations.
@Suite(.promptly) struct SubsonicHouseholdTests {
    @Test func usersAreListedToAdminsWithTheirRoles() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-users")
        try await fixture.test { client in
            let answer = try envelope(try await client.execute(uri: "/rest/getUsers?" + alice(), method: .get))
            let users = try #require((answer["users"] as? [String: Any])?["user"] as? [[String: Any]])
            #expect(users.compactMap { $0["username"] as? String } == ["alice", "bob"])
            let alices = users[0], bobs = users[1]
            #expect(alices["adminRole"] as? Bool == true && alices["settingsRole"] as? Bool == true && alices["jukeboxRole"] as? Bool == true)
            #expect(bobs["adminRole"] as? Bool == false && bobs["settingsRole"] as? Bool == false && bobs["jukeboxRole"] as? Bool == false)
            #expect(bobs["streamRole"] as? Bool == true && bobs["downloadRole"] as? Bool == true && bobs["scrobblingEnabled"] as? Bool == true)
            #expect(try errorCode(try await client.execute(uri: "/rest/getUsers?" + bob(), method: .get)) == 50)
        }
    }

    @Test func nowPlayingComesFromNowPlayingNotices() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-now-playing")
        let track = try #require(try fixture.runtime.collection.tracks(albumID: try fixture.album("Tape").id).first)
        try await fixture.test { client in
            func entries() async throws -> [[String: Any]] {
                let answer = try envelope(try await client.execute(uri: "/rest/getNowPlaying?" + alice(), method: .get))
                return (answer["nowPlaying"] as? [String: Any])?["entry"] as? [[String: Any]] ?? []
            }
            #expect(try await entries().isEmpty)
            // A counted play is not "now playing"; a notice is, with the app's name.
            let scrobble = "/rest/scrobble?" + query([("u", "bob"), ("p", SubsonicFixture.bobPassword), ("c", "DSub"), ("f", "json"),
                                                      ("id", "tr-\(track.id)")])
            _ = try await client.execute(uri: scrobble, method: .get)
            #expect(try await entries().isEmpty)
            _ = try await client.execute(uri: scrobble + "&submission=false", method: .get)
            let playing = try await entries()
            #expect(playing.count == 1)
            #expect(playing.first?["username"] as? String == "bob" && playing.first?["playerName"] as? String == "DSub")
            #expect(playing.first?["id"] as? String == "tr-\(track.id)" && playing.first?["minutesAgo"] as? Int == 0)
            #expect(playing.first?["playerId"] is Int)
        }
    }

    @Test func noticesLastTenMinutesOnePerApp() {
        let board = NowPlayingBoard()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        board.playing(user: "bob", trackID: 1, player: "DSub", at: start)
        board.playing(user: "bob", trackID: 2, player: "DSub", at: start.addingTimeInterval(60))
        board.playing(user: "alice", trackID: 3, player: nil, at: start.addingTimeInterval(120))
        var now = board.current(now: start.addingTimeInterval(180))
        #expect(now.map(\.trackID) == [3, 2])
        // The same app keeps its number; another gets its own.
        #expect(now[1].playerID == 1 && now[0].playerID == 2)
        now = board.current(now: start.addingTimeInterval(60 + 599))
        #expect(now.map(\.trackID) == [3, 2])
        now = board.current(now: start.addingTimeInterval(60 + 600))
        #expect(now.map(\.trackID) == [3])
        #expect(board.current(now: start.addingTimeInterval(120 + 600)).isEmpty)
        // An app giving a new name each time does not grow the board without end.
        for n in 0..<100 { board.playing(user: "eve", trackID: Int64(n), player: "app \(n)", at: start.addingTimeInterval(Double(n))) }
        let kept = board.current(now: start.addingTimeInterval(100))
        #expect(kept.count == NowPlayingBoard.capacity && kept.first?.trackID == 99)
    }

    @Test func adminsEditTheRadioStations() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-radio")
        try await fixture.test { client in
            func call(_ endpoint: String, _ extra: [(String, String)], as who: ([(String, String)], String) -> String = alice) async throws -> Int? {
                try errorCode(try await client.execute(uri: "/rest/\(endpoint)?" + who(extra, "json"), method: .get))
            }
            func stations() async throws -> [[String: Any]] {
                let answer = try envelope(try await client.execute(uri: "/rest/getInternetRadioStations?" + bob(), method: .get))
                return (answer["internetRadioStations"] as? [String: Any])?["internetRadioStation"] as? [[String: Any]] ?? []
            }
            #expect(try await call("createInternetRadioStation", [("streamUrl", "http://radio.example/one"), ("name", "One FM"),
                                                                  ("homepageUrl", "http://radio.example")]) == nil)
            var list = try await stations()
            #expect(list.count == 1 && list[0]["name"] as? String == "One FM" && list[0]["streamUrl"] as? String == "http://radio.example/one")
            let id = try #require(list[0]["id"] as? String)
            // Core keeps stations; the web page sees this one too.
            #expect(try fixture.runtime.collection.stations().map(\.name) == ["One FM"])

            #expect(try await call("createInternetRadioStation", [("streamUrl", "http://radio.example/two"), ("name", "Two")], as: bob) == 50)
            #expect(try await call("createInternetRadioStation", [("streamUrl", "ftp://radio.example/x"), ("name", "Bad")]) == 0)
            #expect(try await call("createInternetRadioStation", [("streamUrl", "http://radio.example/two")]) == 10)
            #expect(try await call("createInternetRadioStation", [("streamUrl", "http://radio.example/dup"), ("name", "One FM")]) == 0)

            #expect(try await call("updateInternetRadioStation", [("id", id), ("streamUrl", "https://radio.example/uno"), ("name", "Uno")]) == nil)
            list = try await stations()
            #expect(list.count == 1 && list[0]["name"] as? String == "Uno" && list[0]["streamUrl"] as? String == "https://radio.example/uno")
            let newID = try #require(list[0]["id"] as? String)
            // A refused update changes nothing.
            #expect(try await call("updateInternetRadioStation", [("id", newID), ("streamUrl", "not a url"), ("name", "Dos")]) == 0)
            #expect(try await call("updateInternetRadioStation", [("id", "st-999999"), ("streamUrl", "http://a.example"), ("name", "X")]) == 70)
            #expect(try await call("updateInternetRadioStation", [("id", newID), ("streamUrl", "http://a.example"), ("name", "X")], as: bob) == 50)
            #expect(try await stations().compactMap { $0["name"] as? String } == ["Uno"])

            #expect(try await call("deleteInternetRadioStation", [("id", newID)], as: bob) == 50)
            #expect(try await call("deleteInternetRadioStation", [("id", newID)]) == nil)
            #expect(try await stations().isEmpty)
            #expect(try await call("deleteInternetRadioStation", [("id", newID)]) == 70)
            #expect(try await call("deleteInternetRadioStation", [("id", "al-1")]) == 70)
        }
    }
}
