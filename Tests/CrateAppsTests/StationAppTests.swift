import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// Stations and stream URLs from the CLI and over HTTP, through a real crated.
    @Suite struct StationAppTests {
        @Test func stationsAreSavedListedSearchedQueuedAndRemoved() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app)
            let (events, curl) = try DaemonFirstTests().listen(app, daemon)
            defer { curl.stop(signal: SIGKILL) }

            let added = try app.crate("stations", "add", "Loopback FM", "http://127.0.0.1:9/live.mp3", env: daemon.env)
            #expect(added.status == 0 && added.stdout.contains("Saved station"), "\(added.stderr)")
            try waitUntil("the station's event", seconds: 30) { DaemonFirstTests.text(events).contains("station 1 added") }
            let bad = try app.crate("stations", "add", "Nope", "ftp://example.org/x", env: daemon.env)
            #expect(bad.status != 0 && bad.stderr.contains("http:// or https://"), "\(bad.stderr)")
            let again = try SecurityTests.call(daemon.port, "POST", "/api/v1/stations", headers: SecurityTests.json,
                                               body: #"{"name": "loopback fm", "url": "http://127.0.0.1:9/other"}"#)
            #expect(again.status == 409 && again.errorCode == "exists", "\(again)")

            let list = try decodeJSON([Station].self, try SecurityTests.call(daemon.port, "GET", "/api/v1/stations").body)
            let station = try #require(list.first)
            #expect(list.count == 1 && station.name == "Loopback FM" && station.url == "http://127.0.0.1:9/live.mp3")
            #expect(try app.crate("search", "loopback").stdout.contains("Stations (1)"))
            // A favorite by its track, like any track.
            #expect(try app.crate("fav", "track", "\(station.trackID)", env: daemon.env).status == 0)
            #expect(try app.crate("stations", "--json").stdout.contains("\"favorite\" : true"))

            // play-url waits for the first sound: nothing listens on port 9, so it says why and fails.
            let failed = try app.crate("play-url", "http://127.0.0.1:9/adhoc.ogg", env: daemon.env)
            #expect(failed.status == 1 && failed.stderr.contains("cannot play") && failed.stderr.contains("127.0.0.1:9"), "\(failed.stderr)")
            // Without waiting it queues the stream as the only entry; its track names the URL.
            let played = try app.crate("play-url", "http://127.0.0.1:9/adhoc.ogg", "--wait", "0", "--json", env: daemon.env)
            #expect(played.status == 0, "\(played.stderr)")
            let queue = try SecurityTests.call(daemon.port, "GET", "/api/v1/queue").json
            let entries = queue["entries"] as? [[String: Any]] ?? []
            let track = entries.first?["track"] as? [String: Any]
            #expect(entries.count == 1 && (track?["ref"] as? [String: Any])?["id"] as? String == "http://127.0.0.1:9/adhoc.ogg", "\(queue)")
            // Playing the saved station replaces the queue with it.
            #expect(try app.crate("stations", "play", "loopback", "--wait", "0", env: daemon.env).status == 0)
            let now = try SecurityTests.call(daemon.port, "GET", "/api/v1/queue").json["entries"] as? [[String: Any]] ?? []
            #expect((now.first?["track"] as? [String: Any])?["title"] as? String == "Loopback FM")

            // Stations never show up as an album.
            #expect(!(try app.crate("albums").stdout.contains("Internet radio")))
            #expect(try app.crate("stations", "remove", "Loopback FM", env: daemon.env).status == 0)
            try waitUntil("the removal's event", seconds: 30) { DaemonFirstTests.text(events).contains("station 1 removed") }
            #expect(try app.crate("stations").stdout.contains("No stations"))
        }

        /// A radio stream played through crated: the ICY titles reach the event stream and the status, and the
        /// stream's sound reaches the output.
        @Test func radioPlaysWithItsTitlesInEventsAndStatus() throws {
            let server = try RadioServer()
            let app = try AppHarness()
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "wav"])
            let (events, curl) = try DaemonFirstTests().listen(app, daemon)
            defer { curl.stop(signal: SIGKILL) }

            // A saved station whose URL is the radio's playlist (.pls): resolved to its stream.
            #expect(try app.crate("stations", "add", "Loopback Radio", server.url("/list.pls").absoluteString, env: daemon.env).status == 0)
            let played = try app.crate("stations", "play", "loopback", env: daemon.env)
            #expect(played.status == 0, "\(played.stderr)")
            try waitUntil("both titles as events", seconds: 60) {
                let text = DaemonFirstTests.text(events)
                return text.contains("stream title First Song") && text.contains("stream title Second Song")
            }
            let status = try app.waitFor(daemon, seconds: 60) { $0.streamTitle != nil }
            #expect(status.state == .playing && ["First Song", "Second Song"].contains(status.streamTitle ?? ""), "\(status)")
            // The unpaced test output runs through the stream: the title on air may have moved on since.
            let shown = try app.crate("status", env: daemon.env).stdout
            #expect(shown.contains("now on air: First Song") || shown.contains("now on air: Second Song"), "\(shown)")
            #expect(try app.crate("stop", env: daemon.env).status == 0)
            // Sound reached the output (the WAV file output here): more than a header, at least one chunk of the engine
            // (4096 float stereo frames). How much more depends on how soon both titles came: the decoder reads the
            // short stream ahead of the paced output, so the test may stop it after half a second of sound or less.
            // The output thread closes the file (writing what it buffers) just after the stop is answered: waited for.
            let path = app.environment["CRATE_OUTPUTS_WAV_PATH"] ?? ""
            try waitUntil("a chunk of sound in \(path)", seconds: 30) {
                ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 4096 * 8
            }
            #expect(try server.stats()["radio"] ?? 0 >= 1)
            // Played: in history and Home, as the station.
            let home = try app.crate("home", "--json", env: daemon.env)
            #expect(home.stdout.contains("\"kind\" : \"station\"") && home.stdout.contains("Loopback Radio"), "\(home.stdout)")
        }
    }
}
