import CrateDomain
@testable import CrateStorage
import Foundation
import GRDB
import Testing

/// The disc subtitle in the library database: saved with the tags, replaced (or cleared) when the file is read again,
/// stored with catalog previews, and added by migration v12 to a library that had none.
@Suite struct DiscSubtitleStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws { fx = try StoreFixture("crate-disc-subtitle") }

    @Test func savedWithTheTagsAndReplacedWhenReadAgain() throws {
        func tags(_ subtitles: [String?]) -> [TrackTags] {
            subtitles.enumerated().map { i, subtitle in
                TrackTags(title: "T\(i + 1)", artist: "Band", album: "Double", trackNumber: 1, discNumber: i + 1,
                          discTotal: 2, discSubtitle: subtitle)
            }
        }
        let saved = try fx.save("/m/double", tags(["The Studio Set", nil]))
        #expect(saved.map(\.discSubtitle) == ["The Studio Set", nil])
        // The same files read again (a rescan): the tags' current values win, an absent one clears the old.
        let again = try fx.save("/m/double", tags([nil, "The Live Set"]))
        #expect(again.map(\.id) == saved.map(\.id))
        #expect(try store.tracks(albumID: saved[0].albumID).map(\.discSubtitle) == [nil, "The Live Set"])
    }

    @Test func previewsKeepTheirDiscSubtitle() throws {
        let album = Album(id: 5, identity: "applemusic:5", title: "Double", artist: "Band", date: nil, year: nil, genre: nil,
                          isCompilation: false, trackCount: 1, discCount: 2, duration: 30, addedAt: StoreFixture.epoch,
                          source: "applemusic", externalID: "5")
        let song = Track(id: 51, ref: TrackRef(source: "applemusic", id: "51"), albumID: 5, title: "Encore", artist: "Band",
                         albumArtist: "Band", album: "Double", genre: nil, date: nil, trackNumber: 1, trackTotal: 1,
                         discNumber: 2, discTotal: 2, discSubtitle: "The Live Set", duration: 30,
                         info: StreamInfo(codec: "aac", sampleRate: 44_100, channels: 2), path: nil,
                         playableInFull: false, previewURL: "https://audio.example/p/51.m4a")
        let ids = try store.storePreviews(of: album, tracks: [song])
        #expect(try store.track(id: try #require(ids.first))?.discSubtitle == "The Live Set")
        var renamed = song
        renamed.discSubtitle = "Live"
        #expect(try store.storePreviews(of: album, tracks: [renamed]) == ids)
        #expect(try store.track(id: try #require(ids.first))?.discSubtitle == "Live")
    }

    /// A library from before v12: its tracks have no subtitle, and its reference imports' records are marked so the
    /// next rescan reads their files again (copies are left as they are).
    @Test func aLibraryFromBeforeGetsTheColumnAndRereadsReferenceImports() throws {
        let upgraded = try fx.upgradedLibrary("old.sqlite", from: "v11: loudness: ReplayGain tags, scanned track and album loudness") { db in
            try db.execute(sql: """
                INSERT INTO artist (id, name, sort_key) VALUES (1, 'Band', 'band');
                INSERT INTO album (id, identity, title, artist_id, added_at) VALUES (1, 'tags:band␟double␟', 'Double', 1, 0);
                INSERT INTO track (id, source, source_id, album_id, artist_id, title, artist, disc_number, codec,
                                   sample_rate, channels, duration, added_at, updated_at) VALUES
                    (1, 'file', '/o/1.flac', 1, 1, 'One', 'Band', 1, 'flac', 44100, 2, 10, 0, 0),
                    (2, 'file', '/lib/2.flac', 1, 1, 'Two', 'Band', 2, 'flac', 44100, 2, 10, 0, 0);
                INSERT INTO import_record (source_path, folder, size, mtime, outcome, track_id, mode, imported_at) VALUES
                    ('/o/1.flac', '/o', 100, 1000, 'imported', 1, 'reference', 0),
                    ('/in/2.flac', '/in', 100, 1000, 'imported', 2, 'copy', 0);
                """)
        }
        defer { try? upgraded.pool.close() }
        #expect(try upgraded.tracks(albumID: 1).map(\.discSubtitle) == [nil, nil])
        let stamps = try upgraded.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT mode, mtime FROM import_record ORDER BY source_path")
                .map { "\($0["mode"] as String) \($0["mtime"] as Double)" }
        }
        #expect(stamps == ["copy 1000.0", "reference -1.0"])
    }
}
