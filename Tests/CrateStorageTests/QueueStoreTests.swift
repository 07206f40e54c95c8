import CrateDomain
import CrateStorage
import CrateTestSupport
import Foundation
import Testing

/// The queue in a real SQLite file, up to 100,000 entries (speed is measured in Benchmarks/).
@Suite struct QueueStoreTests {
    let dir: URL
    let store: LibraryStore
    let tracks: [Int64]

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-queue")
        store = try LibraryStore(url: dir.appendingPathComponent("library.sqlite"))
        let tags = (1...5).map { (n: Int) in TrackTags(title: "T\(n)", artist: "A", album: "Q", trackNumber: n) }
        let keys = AlbumGrouping.keys(for: tags, folder: dir)
        try store.save(ScanBatch(folder: dir.path, tracks: zip(tags, keys).enumerated().map { i, p in
            ScannedTrack(ref: TrackRef(source: "file", id: "/q/\(i).flac"), path: "/q/\(i).flac", size: 1, modified: Date(),
                         tags: p.0, info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, frames: 44100),
                         title: p.0.title ?? "-", artist: "A", album: p.1)
        }, failures: []))
        tracks = try store.tracks(albumID: try #require(try store.albums().first).id).map(\.id)
    }

    func titles() throws -> [String] { try store.queue().map(\.track.title) }

    @Test func insertMoveRemoveKeepOrderAndDuplicates() throws {
        try store.replaceQueue(with: [tracks[0], tracks[1], tracks[2]])
        try store.insertIntoQueue([tracks[3]], at: 2)
        try store.insertIntoQueue([tracks[0]])                       // append; a duplicate
        try store.insertIntoQueue([tracks[4], tracks[4]], at: 1)
        #expect(try titles() == ["T5", "T5", "T1", "T4", "T2", "T3", "T1"], "\((try? titles()) ?? [])")
        let last = try #require(try store.queueEntry(at: 7))
        try store.moveQueueEntry(last.id, to: 1)
        #expect(try titles() == ["T1", "T5", "T5", "T1", "T4", "T2", "T3"], "\((try? titles()) ?? [])")
        let first = try #require(try store.queueEntry(at: 1))
        try store.moveQueueEntry(first.id, to: 7)
        #expect(try titles() == ["T5", "T5", "T1", "T4", "T2", "T3", "T1"], "\((try? titles()) ?? [])")
        try store.removeQueueEntry(try #require(try store.queueEntry(at: 4)).id)
        #expect(try titles() == ["T5", "T5", "T1", "T2", "T3", "T1"], "\((try? titles()) ?? [])")
        #expect(try store.queue().map(\.index) == Array(1...6))
    }

    /// Repeated inserts into the same gap exhaust the spacing; positions are renumbered and order holds.
    @Test func gapsAreRenumberedWhenUsedUp() throws {
        try store.replaceQueue(with: [tracks[0], tracks[1]])
        for _ in 0..<80 { try store.insertIntoQueue([tracks[2]], at: 2) }
        let all = try titles()
        #expect(all.count == 82 && all.first == "T1" && all.last == "T2")
        #expect(all.dropFirst().dropLast().allSatisfy { $0 == "T3" })
    }

    @Test func hundredThousandEntriesInsertMoveRemoveAndReopen() throws {
        let n = 100_000
        let ids = (0..<n).map { tracks[$0 % tracks.count] }
        try store.replaceQueue(with: ids)
        #expect(try store.queueCount() == n)
        try store.insertIntoQueue([tracks[4]], at: 1)
        try store.insertIntoQueue([tracks[4]], at: 50_000)
        try store.insertIntoQueue([tracks[4]])
        let tail = try #require(try store.queueEntry(at: n + 3))
        try store.moveQueueEntry(tail.id, to: 2)
        try store.removeQueueEntry(try #require(try store.queueEntry(at: 50_001)).id)
        #expect(try store.queueCount() == n + 2)

        let reopened = try LibraryStore(url: URL(fileURLWithPath: store.path))
        #expect(try reopened.queueCount() == n + 2)
        #expect(try reopened.queueEntry(at: 1)?.track.title == "T5")
        #expect(try reopened.queueEntry(at: 2)?.id == tail.id)
        #expect(try reopened.queueEntry(at: 3)?.track.title == "T1")
        let page = try reopened.queue(offset: 49_990, limit: 20)
        #expect(page.map(\.index) == Array(49_991...50_010))
        #expect(try reopened.queueEntry(at: n + 2)?.track.title == "T5")
    }

    @Test func historyKeepsTheNewestHundred() throws {
        for i in 0..<130 { try store.recordPlay(trackID: tracks[i % 5], at: Date(timeIntervalSince1970: Double(i))) }
        let history = try store.history()
        #expect(history.count == 100)
        #expect(history.first?.playedAt == Date(timeIntervalSince1970: 129))
        #expect(history.last?.playedAt == Date(timeIntervalSince1970: 30))
    }

    @Test func snapshotAndTrackPositionsPersist() throws {
        var modes = PlayerModes()
        modes.repeatMode = .one
        modes.volume = 35
        try store.savePlayerSnapshot(PlayerSnapshot(currentEntryID: 7, elapsed: 12.5, modes: modes))
        try store.saveTrackPosition(trackID: tracks[1], seconds: 99)
        let reopened = try LibraryStore(url: URL(fileURLWithPath: store.path))
        #expect(try reopened.playerSnapshot() == PlayerSnapshot(currentEntryID: 7, elapsed: 12.5, modes: modes))
        #expect(try reopened.trackPosition(trackID: tracks[1]) == 99)
    }
}
