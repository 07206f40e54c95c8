import CrateDomain
@testable import CrateStorage
import CrateTestSupport
import Foundation
import Testing
import GRDB

/// A real library database in a fresh temporary folder. The folder is removed when the fixture goes
/// away (a suite instance lives for one test), after the database is closed.
final class StoreFixture: Sendable {
    /// 2026-01-01 00:00:00 UTC: the default import time, so dates in tests are exact.
    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)
    static let day: TimeInterval = 86_400

    let dir: URL
    let store: LibraryStore

    init(_ label: String) throws {
        dir = try Fixture.temporaryDirectory(label)
        store = try LibraryStore(url: dir.appendingPathComponent("library.sqlite"))
    }

    deinit {
        try? store.pool.close()
        try? FileManager.default.removeItem(at: dir)
    }

    /// A library file `name` as a migration left it (up to `migration`, then `seed`), opened by the current store, which
    /// migrates it the rest of the way. The caller closes it (`pool.close()`).
    func upgradedLibrary(_ name: String, from migration: String, seed: (Database) throws -> Void) throws -> LibraryStore {
        let url = dir.appendingPathComponent(name)
        let old = try DatabaseQueue(path: url.path)
        try Migrations.migrator.migrate(old, upTo: migration)
        try old.write(seed)
        try old.close()
        return try LibraryStore(url: url)
    }

    /// `epoch` plus `days` days.
    static func date(days: Double) -> Date { epoch.addingTimeInterval(days * day) }

    /// One scanned folder, grouped by the real album rules. Each file is "<folder>/<n>.flac" and lasts 10 s.
    static func batch(_ folder: String, _ tags: [TrackTags]) -> ScanBatch {
        let keys = AlbumGrouping.keys(for: tags, folder: URL(fileURLWithPath: folder))
        let tracks = zip(tags, keys).enumerated().map { i, pair in
            let path = "\(folder)/\(i + 1).flac"
            return ScannedTrack(ref: TrackRef(source: "file", id: path), path: path, size: 1000,
                                modified: Date(timeIntervalSince1970: 0), tags: pair.0,
                                info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: 441_000),
                                title: pair.0.title ?? "t\(i)", artist: pair.0.artist ?? AlbumGrouping.unknownArtist,
                                album: pair.1)
        }
        return ScanBatch(folder: folder, tracks: tracks, failures: [])
    }

    /// Saves one folder (an import at `date`) and returns its tracks in the order of `tags`.
    @discardableResult
    func save(_ folder: String, _ tags: [TrackTags], at date: Date = StoreFixture.epoch) throws -> [Track] {
        let batch = Self.batch(folder, tags)
        try store.save(batch, at: date)
        let all = try store.tracks(sort: ListSort(.added), limit: 1_000_000)
        let byPath = Dictionary(all.compactMap { t in t.path.map { ($0, t) } }, uniquingKeysWith: { a, _ in a })
        return try batch.tracks.map { try #require(byPath[$0.path], "track \($0.path) was not saved") }
    }

    /// Saves a one-track album and returns the track.
    @discardableResult
    func saveAlbum(_ folder: String, title: String, artist: String, album: String, date: String? = nil,
                   genre: String? = nil, at time: Date = StoreFixture.epoch) throws -> Track {
        let tracks = try save(folder, [TrackTags(title: title, artist: artist, album: album, genre: genre, date: date)], at: time)
        return try #require(tracks.first)
    }

    /// The album titled `title` (disliked ones included).
    func album(_ title: String) throws -> Album {
        try #require(try store.albums(includeDisliked: true).first { $0.title == title }, "no album '\(title)'")
    }

    /// The artist named `name` (album artist or not).
    func artist(_ name: String) throws -> Artist {
        try store.resolveArtist(name)
    }
}
