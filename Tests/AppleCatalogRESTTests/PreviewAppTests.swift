import CrateTestSupport
import Foundation
import Testing

/// Issue 17 item 7: catalog previews. The real `crate` and `crated` against the fake Apple on loopback, whose songs'
/// previews are AAC files on that same server (made here with ffmpeg): playing a catalog album asks for the previews in
/// album order and plays them through the FFmpeg decoder, marked as previews in status and events.
extension CatalogAppTests {
    /// The detailed album's songs in album order (disc 1: parts 1–3, disc 2: parts 4–5); part 3 has no preview.
    static let previewSongs = [("1500000101", "Part 1"), ("1500000102", "Part 2"), ("1500000104", "Part 4"), ("1500000105", "Part 5")]

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    static func jsonList(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON list: \(text)")
    }

    static func title(_ status: [String: Any]) -> String? {
        ((status["entry"] as? [String: Any])?["track"] as? [String: Any])?["title"] as? String
    }

    /// The `player` events' details and whether each said `preview: true`, in order.
    static func playerEvents(_ file: URL) -> [(detail: String, preview: Bool)] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> (String, Bool)? in
            guard line.hasPrefix("data: "), let data = line.dropFirst(6).data(using: .utf8),
                  let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  event["subsystem"] as? String == "player", let detail = event["detail"] as? String else { return nil }
            return (detail, event["preview"] as? Bool == true)
        }
    }

    @Test func aCatalogAlbumPlaysItsPreviewsInAlbumOrder() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let home = try Fixture.temporaryDirectory("crate-previews")
        defer { try? FileManager.default.removeItem(at: home) }
        // One second of AAC per song, each its own pitch, index first (as Apple's previews are).
        let folder = home.appendingPathComponent("previews")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (n, song) in Self.previewSongs.enumerated() {
            let file = folder.appendingPathComponent("\(song.0).m4a").path
            _ = try await Self.offPool {
                try Fixture.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(330 + 110 * n):duration=1",
                                           "-ac", "2", "-ar", "44100", "-c:a", "aac", "-movflags", "+faststart", file])
            }
        }
        var options = FakeAppleMusic.Options()
        options.previews = folder
        let server = try await FakeAppleMusic.start(keys: keys, options)
        var env = Self.environment(home, server: server, keys: keys)
        let (daemon, base) = try await Self.startDaemon(&env, log: home.appendingPathComponent("crated.log"))
        defer { daemon.stop(signal: SIGKILL) }
        let events = home.appendingPathComponent("events.txt")
        let listener = try ChildProcess(["curl", "-s", "-N", base + "events"], output: events)
        defer { listener.stop(signal: SIGKILL) }
        try await waitUntilAsync("the event stream to open", seconds: 30) {
            ((try? String(contentsOf: events, encoding: .utf8)) ?? "").contains(": crated events")
        }
        let album = FakeAppleMusicRoutes.detailedAlbumID
        let env2 = env
        func get(_ path: String) async throws -> String { try await Self.curl(["-sf", base + path]) }
        func previewsAsked() async -> [String] { await server.log.seen.map(\.path).filter { $0.hasPrefix("/previews/") } }
        func playedThrough(_ titles: [String]) async throws -> Bool {
            let status = try Self.json(try await get("player"))
            let history = try Self.jsonList(try await get("history")).compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
            return status["state"] as? String == "stopped" && Array(history.prefix(titles.count)) == titles.reversed()
        }

        // The whole album: four previews queued, part 3 named as left out; the answer is the player just after the start.
        let run = try await Self.crate(["play-album", "applemusic:\(album)", "--json"], env: env2)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let played = try Self.json(run.stdout)
        #expect(played["album"] as? String == "applemusic:\(album)" && played["title"] as? String == "Kind of Invented")
        #expect(played["queued"] as? Int == 4)
        let skipped = played["skipped"] as? [[String: Any]] ?? []
        #expect(skipped.map { $0["title"] as? String } == ["Part 3"] && skipped.first?["reason"] as? String == "no preview", "\(skipped)")
        let status = try #require(played["status"] as? [String: Any])
        #expect(status["preview"] as? Bool == true && status["catalogAlbumID"] as? String == "applemusic:\(album)", "\(status)")
        #expect(Self.title(status) == "Part 1" && status["queueLength"] as? Int == 4, "\(status)")
        #expect((status["entry"] as? [String: Any])?["albumLock"] as? Bool == true)

        // They play through, in album order, and each was asked of the server once, in that order.
        let titles = Self.previewSongs.map(\.1)
        try await waitUntilAsync("the previews to play through", seconds: 60) { try await playedThrough(titles) }
        #expect(await previewsAsked() == Self.previewSongs.map { "/previews/\($0.0).m4a" })
        let said = Self.playerEvents(events)
        let playing = said.filter { $0.detail.hasPrefix("playing Part") }
        #expect(playing.map(\.detail) == titles.map { "playing \($0) (preview)" }, "\(said)")
        #expect(playing.allSatisfy(\.preview) && said.filter { $0.detail.hasPrefix("finished Part") }.count == 4, "\(said)")
        #expect(said.contains { $0.detail == "skipped Part 3: no preview" && $0.preview }, "\(said)")
        // The history's tracks are the previews: their refs are the preview URLs, their durations the catalog's.
        let history = try Self.jsonList(try await get("history"))
        let last = try #require(history.first?["track"] as? [String: Any])
        let ref = try #require(last["ref"] as? [String: Any])
        #expect(ref["source"] as? String == "http" && ref["id"] as? String == server.baseURL.absoluteString + "/previews/1500000105.m4a")
        #expect(last["duration"] as? Double == 100 && last["discNumber"] as? Int == 2 && last["trackNumber"] as? Int == 2)

        // The preview album is nobody's library album.
        #expect(try Self.jsonList(try await get("albums")).isEmpty)
        #expect(try Self.jsonList(try await get("artists")).isEmpty)
        let health = try Self.json(try await get("health"))
        let library = try #require(health["library"] as? [String: Any])
        #expect(library["albums"] as? Int == 0 && library["tracks"] as? Int == 0 && library["artists"] as? Int == 0, "\(library)")
        let queued = try Self.json(try await get("queue"))["entries"] as? [[String: Any]] ?? []
        let firstIDs = queued.compactMap { ($0["track"] as? [String: Any])?["id"] as? Int }

        // Again from the second song, in words: the same tracks (reused), the previews asked again from there.
        let again = try await Self.crate(["play-album", "applemusic:\(album)", "--from", "2"], env: env2)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("previews of Kind of Invented — The Invented Quartet (applemusic:\(album)): 3 queued"), "\(again.stdout)")
        #expect(again.stdout.contains("skipped Part 3: no preview") && again.stdout.contains("preview of applemusic:\(album)"), "\(again.stdout)")
        try await waitUntilAsync("the previews to play through again", seconds: 60) { try await playedThrough(Array(titles.dropFirst())) }
        let requeued = try Self.json(try await get("queue"))["entries"] as? [[String: Any]] ?? []
        #expect(requeued.compactMap { ($0["track"] as? [String: Any])?["id"] as? Int } == Array(firstIDs.dropFirst()), "\(firstIDs)")
        #expect(await previewsAsked() == (Self.previewSongs + Self.previewSongs.dropFirst()).map { "/previews/\($0.0).m4a" })

        // An album without any preview, and one the catalog does not know, are refused with the reason.
        let none = try await Self.crate(["play-album", "applemusic:\(FakeAppleMusicRoutes.yearOnlyAlbumID)"], env: env2)
        #expect(none.status != 0 && none.stderr.contains("has no song with a preview"), "\(none.stderr)")
        let unknown = try await Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", base + "catalog/albums/7/play"])
        #expect(unknown == "404")
        // Playback stayed where it was: the earlier queue is untouched.
        #expect(try Self.json(try await get("player"))["queueLength"] as? Int == 3)

        // The API takes `applemusic:ID` too, and a JSON body saying where to start (the fifth song: part 5 alone).
        let single = try Self.json(try await Self.curl(["-s", "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"from": 5}"#,
                                                      base + "catalog/albums/applemusic:\(album)/play"]))
        #expect(single["queued"] as? Int == 1 && (single["skipped"] as? [Any])?.isEmpty == true, "\(single)")
        #expect(Self.title(try #require(single["status"] as? [String: Any])) == "Part 5", "\(single)")
        try await waitUntilAsync("the last preview to play through", seconds: 60) { try await playedThrough(["Part 5"]) }

        daemon.send(SIGTERM)
        _ = daemon.waitForExit(seconds: 30)
        await server.stop()
    }
}
