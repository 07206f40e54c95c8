import CrateCore
import CratePlugins
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

/// The player's rules on a real database and real outputs: the null output where playback may run
/// as fast as it decodes, a private PulseAudio server where a track must still be playing.
@Suite(.promptly) struct PlayerServiceTests {
    let dir: URL

    init() throws { dir = try Fixture.temporaryDirectory("crate-player") }

    /// Album "A" (3 tracks) and album "B" (2 tracks) of `seconds` each, imported.
    func runtime(seconds: Double, pulse: PulseTestServer? = nil, pulseServer: String? = nil) throws -> (CrateRuntime, a: [Track], b: [Track]) {
        for (album, count) in [("A", 3), ("B", 2)] {
            let folder = dir.appendingPathComponent("music/\(album)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for n in 1...count {
                try Fixture.encode(.flac, to: folder.appendingPathComponent("\(n).flac"), frames: Int(seconds * 44100),
                                   tags: ["title": "\(album)\(n)", "artist": "X", "album": album, "track": "\(n)"])
            }
        }
        var settings = Settings(dataDirectory: dir.appendingPathComponent("data"))
        settings.setPluginValue("outputs.pulse.server", pulse?.server ?? pulseServer)
        settings.setPluginValue("outputs.pulse.sink", pulse?.sink)
        settings.setPluginValue("outputs.null.render", "true")   // as fast as decoded: these tests check order, not time
        let runtime = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
        _ = try runtime.library.importPaths([dir.appendingPathComponent("music").path], mode: .reference)
        let albums = try runtime.store.albums()
        func tracks(_ title: String) throws -> [Track] {
            try runtime.store.tracks(albumID: try #require(albums.first { $0.title == title }).id)
        }
        return (runtime, try tracks("A"), try tracks("B"))
    }

    func titles(_ player: PlayerService) async throws -> [String] { try await player.queue().map(\.track.title) }

    /// Polls until `condition` holds (a hang guard of `seconds`, not a timing check).
    @discardableResult
    func waitFor(_ player: PlayerService, seconds: Double = 120, _ condition: (PlayerStatus) -> Bool) async throws -> PlayerStatus {
        let deadline = Date().addingTimeInterval(seconds)
        var status = try await player.status()
        while !condition(status) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            status = try await player.status()
        }
        return status
    }

    @Test func selectingATrackQueuesItAndTheRestOfTheListAndStartsIt() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let (runtime, a, _) = try runtime(seconds: 10, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playList(a.map(\.id), from: 1)
        #expect(try await titles(player) == ["A2", "A3"])
        let status = try await player.status()
        #expect(status.state == .playing && status.entry?.track.title == "A2")
        await player.shutdown()
    }

    @Test func playNextAddToEndAndDuplicates() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let (runtime, a, b) = try runtime(seconds: 10, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playAlbum(a[0].albumID)
        try await player.add([b[0].id], mode: .next)
        try await player.add([b[1].id], mode: .end)
        try await player.add([a[0].id], mode: .end)
        #expect(try await titles(player) == ["A1", "B1", "A2", "A3", "B2", "A1"])
        // Starting from another list replaces the queue.
        try await player.playList(b.map(\.id))
        #expect(try await titles(player) == ["B1", "B2"])
        await player.shutdown()
    }

    /// MPD's playlist version: every queue change has moved it on by the time the call returns (a client's next
    /// `status` or `plchanges` must see it, before any event reaches a front end); nothing else moves it.
    @Test func theQueueVersionMovesWithEveryQueueChangeBeforeTheCallReturns() async throws {
        let (runtime, a, b) = try runtime(seconds: 1)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        func changes(_ what: String, by step: Int = 1, _ change: () async throws -> Void) async throws {
            let before = await player.queueVersion
            try await change()
            #expect(await player.queueVersion == before + step, "\(what)")
        }
        try await changes("play a list") { try await player.playList(a.map(\.id)) }
        try await changes("add") { _ = try await player.add(b.map(\.id)) }
        try await changes("move") { try await player.move(from: 5, to: 4) }
        try await changes("move a range") { try await player.move(range: 4...5, to: 1) }
        try await changes("remove") { try await player.remove(at: 2) }
        try await changes("shuffle") { try await player.shuffleQueue() }
        try await changes("pause and volume", by: 0) {
            await player.pause()
            await player.setVolume(40)
        }
        try await changes("clear") { try await player.clear() }
        await player.shutdown()
    }

    @Test func previousRestartsPastFourSecondsElseGoesBack() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let (runtime, a, _) = try runtime(seconds: 10, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playList(a.map(\.id))
        try await player.next()
        try await player.seek(to: 6)
        try await player.previous()
        var status = try await player.status()
        #expect(status.entry?.track.title == "A2" && status.elapsed < 4)
        try await player.previous()
        status = try await player.status()
        #expect(status.entry?.track.title == "A1")
        await player.shutdown()
    }

    @Test func playingFromHistoryReplacesOnlyTheCurrentTrack() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let (runtime, a, b) = try runtime(seconds: 10, pulse: server)
        try runtime.store.recordPlay(trackID: b[1].id)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playList(a.map(\.id))
        try await player.playHistory(1)
        #expect(try await titles(player) == ["B2", "A2", "A3"])
        #expect(try await player.status().entry?.track.title == "B2")
        await player.shutdown()
    }

    @Test func finishedTracksGoToHistoryNewestFirst() async throws {
        let (runtime, a, _) = try runtime(seconds: 0.2)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.playAlbum(a[0].albumID)
        try await waitFor(player) { $0.state == .stopped }
        #expect(try await player.history().map(\.track.title) == ["A3", "A2", "A1"])
        await player.shutdown()
    }

    @Test func stopAfterAlbumPausesAtTheBorder() async throws {
        let (runtime, a, b) = try runtime(seconds: 0.2)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.setStopAfterAlbum(true)
        try await player.playList((a + b).map(\.id))
        let status = try await waitFor(player) { $0.state == .paused }
        #expect(status.state == .paused && status.entry?.track.title == "B1" && status.elapsed == 0)
        #expect(try await player.history().map(\.track.title) == ["A3", "A2", "A1"])
        await player.shutdown()
    }

    @Test func stopAfterTrackStopsAtTheNextEntryAndOnceTurnsItselfOff() async throws {
        let (runtime, a, _) = try runtime(seconds: 0.2)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.setStopAfterTrack(.always)
        try await player.playAlbum(a[0].albumID)
        var status = try await waitFor(player) { $0.state == .stopped }
        #expect(status.entry?.track.title == "A2" && status.elapsed == 0 && status.modes.stopAfterTrack == .always)
        #expect(try await player.history().map(\.track.title) == ["A1"])
        // Play goes on from there; once stops after that track and turns itself off.
        try await player.setStopAfterTrack(.once)
        try await player.play()
        status = try await waitFor(player) { $0.state == .stopped && $0.modes.stopAfterTrack == .off }
        #expect(status.entry?.track.title == "A3")
        #expect(try await player.history().map(\.track.title) == ["A2", "A1"])
        // Repeat one wins: with it the track plays again rather than stopping.
        try await player.setRepeat(.one)
        try await player.setStopAfterTrack(.always)
        try await player.play()
        try await waitUntilAsync("A3 played again under repeat one", seconds: 120) { try await player.history().count >= 4 }
        #expect(try await player.history().prefix(2).map(\.track.title) == ["A3", "A3"])
        await player.shutdown()
    }

    @Test func shuffleNeverReordersAnAlbumStartedWithPlayAlbum() async throws {
        let (runtime, a, _) = try runtime(seconds: 0.2)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.setShuffle(true)
        try await player.playAlbum(a[0].albumID)
        #expect(try await player.status().modes.shuffle == false)   // album play turns shuffle off
        try await player.setShuffle(true)                           // and shuffle on later keeps album order
        try await waitFor(player) { $0.state == .stopped }
        #expect(try await player.history().map(\.track.title) == ["A3", "A2", "A1"])
        await player.shutdown()
    }

    @Test func repeatAllWrapsAndRepeatOneHoldsTheTrack() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let (runtime, _, b) = try runtime(seconds: 0.5, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.setRepeat(.all)
        try await player.playList(b.map(\.id))
        // B1, B2, then back to B1 and on. History is newest first: read it oldest first, so a slow poll
        // that lets a fourth track finish does not change what is compared.
        let deadline = Date().addingTimeInterval(120)
        while try await player.history().count < 3 && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await player.history().reversed().prefix(3).map(\.track.title) == ["B1", "B2", "B1"])
        #expect(try await player.status().state == .playing)
        // Repeat one: once the boundaries decided before the mode changed have passed (the decoder runs up to the
        // engine's 2 s buffer ahead: four of these 0.5 s tracks, so five boundaries to be sure), the playing track
        // comes again and again.
        try await player.setRepeat(.one)
        let seen = try await player.history().count
        while try await player.history().count < seen + 5 && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let held = try #require(try await player.history().first?.track.title)
        while try await player.history().count < seen + 8 && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await player.history().prefix(3).map(\.track.title) == [held, held, held])
        await player.shutdown()
    }

    @Test func invalidReferenceIsSkippedAndFlagged() async throws {
        let (runtime, a, _) = try runtime(seconds: 0.2)
        let bad = ScannedTrack(ref: TrackRef(source: "file", id: "relative/path.flac"), path: "relative/path.flac", size: 1,
                               modified: Date(), tags: TrackTags(title: "Bad", album: "A"), info: a[0].info,
                               title: "Bad", artist: "X",
                               album: AlbumKey(identity: "tags:x\u{1F}bad\u{1F}", title: "Bad", artist: "X", date: nil, isCompilation: false))
        try runtime.store.save(ScanBatch(folder: "/", tracks: [bad], failures: []))
        let badID = try #require(try runtime.store.albums().first { $0.title == "Bad" }.map { try runtime.store.tracks(albumID: $0.id) }?.first?.id)
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.playList([badID, a[0].id])
        let status = try await waitFor(player) { $0.state == .stopped }
        #expect(status.lastSkip?.missing == .invalidURI && status.lastSkip?.title == "Bad")
        #expect(try runtime.store.missingReason(trackID: badID) == .invalidURI)
        #expect(try await player.history().map(\.track.title) == ["A1"])
        await player.shutdown()
    }
}
