import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Hummingbird
import HTTPTestSupport
@testable import SubsonicFrontEnd
import Testing

/// jukeboxControl drives crated's own player (here on the null output, in real time): the queue, transport, volume,
/// and who may.
@Suite(.promptly) struct SubsonicJukeboxTests {
    @Test func theJukeboxIsCratesOwnPlayer() async throws {
        let fixture = try await SubsonicFixture.make("crate-subsonic-jukebox")
        // A 20-second song, so it is still playing while the test looks.
        let long = fixture.music.appendingPathComponent("Long/Play")
        try FileManager.default.createDirectory(at: long, withIntermediateDirectories: true)
        _ = try Fixture.encode(.flac, to: long.appendingPathComponent("01.flac"), frames: 44100 * 20,
                               tags: ["title": "Long Song", "artist": "Long", "album": "Play", "track": "1"])
        _ = try fixture.runtime.library.importPaths([long.path], mode: .reference)
        let longSong = try #require(try fixture.runtime.collection.tracks(albumID: try fixture.album("Play").id).first)
        let record = try fixture.runtime.collection.tracks(albumID: try fixture.album("Record").id)
        let tape = try #require(try fixture.runtime.collection.tracks(albumID: try fixture.album("Tape").id).first)
        try await fixture.test { client in
            func jukebox(_ action: String, _ extra: [(String, String)] = []) async throws -> [String: Any] {
                let answer = try envelope(try await client.execute(uri: "/rest/jukeboxControl?" + alice([("action", action)] + extra), method: .get))
                #expect(answer["status"] as? String == "ok", "\(action): \(answer)")
                return answer["jukeboxStatus"] as? [String: Any] ?? answer["jukeboxPlaylist"] as? [String: Any] ?? [:]
            }
            func code(_ extra: [(String, String)], as who: ([(String, String)], String) -> String = alice) async throws -> Int? {
                try errorCode(try await client.execute(uri: "/rest/jukeboxControl?" + who(extra, "json"), method: .get))
            }
            // bob has no jukebox role; alice (the first account) has.
            #expect(try await code([("action", "status")], as: bob) == 50)

            var status = try await jukebox("set", [("id", "tr-\(longSong.id)"), ("id", "tr-\(record[0].id)")])
            #expect(status["currentIndex"] as? Int == -1 && status["playing"] as? Bool == false)
            var list = try await jukebox("get")
            #expect((list["entry"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Long Song", "Song 1"])

            status = try await jukebox("start")
            #expect(status["currentIndex"] as? Int == 0 && status["playing"] as? Bool == true)
            var player = try await fixture.player.status()
            #expect(player.state == .playing && player.entry?.track.id == longSong.id)

            status = try await jukebox("setGain", [("gain", "0.25")])
            #expect(status["gain"] as? Double == 0.25)
            #expect(try await fixture.player.status().modes.volume == 25)

            status = try await jukebox("stop")
            #expect(status["playing"] as? Bool == false)
            #expect(try await fixture.player.status().state == .paused)

            // skip: index from 0, offset in seconds.
            status = try await jukebox("skip", [("index", "0"), ("offset", "5")])
            #expect(status["currentIndex"] as? Int == 0 && status["playing"] as? Bool == true)
            try await waitUntilAsync("the player to stand 5 s into the song", seconds: 10) {
                try await fixture.player.status().elapsed >= 5
            }

            _ = try await jukebox("add", [("id", "tr-\(tape.id)"), ("id", "tr-\(record[1].id)")])
            list = try await jukebox("get")
            #expect((list["entry"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                    == ["Long Song", "Song 1", "Side <A> & \"B\"", "Song 2"])
            #expect(list["currentIndex"] as? Int == 0 && list["playing"] as? Bool == true)
            _ = try await jukebox("remove", [("index", "2")])
            _ = try await jukebox("shuffle")
            list = try await jukebox("get")
            #expect(Set((list["entry"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []) == ["Long Song", "Song 1", "Song 2"])
            player = try await fixture.player.status()
            #expect(player.queueLength == 3)

            // Wrong asks say what is wrong, and change nothing.
            #expect(try await code([("action", "skip"), ("index", "3")]) == 0)
            #expect(try await code([("action", "skip")]) == 10)
            #expect(try await code([("action", "remove"), ("index", "-1")]) == 0)
            #expect(try await code([("action", "setGain"), ("gain", "1.5")]) == 0)
            #expect(try await code([("action", "add"), ("id", "tr-999999")]) == 70)
            #expect(try await code([("action", "add")]) == 10)
            #expect(try await code([("action", "dance")]) == 0)
            #expect(try await code([]) == 10)
            #expect(try await fixture.player.status().queueLength == 3)

            status = try await jukebox("clear")
            #expect(status["currentIndex"] as? Int == -1 && status["playing"] as? Bool == false)
            list = try await jukebox("get")
            #expect((list["entry"] as? [Any])?.isEmpty ?? true)
            #expect(try await code([("action", "start")]) == 0)

            // In XML, as DSub reads it.
            let xml = try await client.execute(uri: "/rest/jukeboxControl.view?" + alice([("action", "status")], format: "xml"), method: .get)
            let root = try XMLElementNode.parse(String(buffer: xml.body))
            #expect(root.first("jukeboxStatus")?.attributes["gain"] == "0.25")
        }
    }
}
