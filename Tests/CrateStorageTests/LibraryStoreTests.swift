import CrateDomain
import CrateStorage
import CrateTestSupport
import Foundation
import GRDB
import Testing

/// Every test opens a real SQLite file in a fresh temporary folder.
@Suite struct LibraryStoreTests {
    let dir: URL
    let store: LibraryStore

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-store")
        store = try LibraryStore(url: dir.appendingPathComponent("library.sqlite"))
    }

    /// A scanned folder, grouped by the real album rules.
    func batch(_ folder: String, _ tags: [TrackTags]) -> ScanBatch {
        let folderURL = URL(fileURLWithPath: folder)
        let keys = AlbumGrouping.keys(for: tags, folder: folderURL)
        let tracks = zip(tags, keys).enumerated().map { i, pair in
            let path = "\(folder)/\(i + 1).flac"
            return ScannedTrack(ref: TrackRef(source: "file", id: path), path: path, size: 1000, modified: Date(timeIntervalSince1970: 0),
                                tags: pair.0, info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: 441000),
                                title: pair.0.title ?? "t\(i)", artist: pair.0.artist ?? "Unknown Artist", album: pair.1)
        }
        return ScanBatch(folder: folder, tracks: tracks, failures: [])
    }

    @Test func databaseIsAFileInWALMode() throws {
        let mode = try DatabaseQueue(path: store.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func twoGreatestHitsByDifferentArtistsStayApart() throws {
        try store.save(batch("/m/queen", [TrackTags(title: "a", artist: "Queen", albumArtist: "Queen", album: "Greatest Hits", date: "1981")]))
        try store.save(batch("/m/abba", [TrackTags(title: "b", artist: "ABBA", albumArtist: "ABBA", album: "Greatest Hits", date: "1992")]))
        let albums = try store.albums()
        #expect(albums.map(\.artist) == ["ABBA", "Queen"])
        #expect(albums.allSatisfy { $0.title == "Greatest Hits" && $0.trackCount == 1 })
    }

    @Test func twoDiscAlbumInTwoFoldersIsOneAlbum() throws {
        try store.save(batch("/m/double/CD1", [
            TrackTags(title: "d1t1", artist: "Band", album: "Double", date: "1999", trackNumber: 1, discNumber: 1, discTotal: 2),
            TrackTags(title: "d1t2", artist: "Band", album: "Double", date: "1999", trackNumber: 2, discNumber: 1, discTotal: 2),
        ]))
        try store.save(batch("/m/double/CD2", [
            TrackTags(title: "d2t1", artist: "Band", album: "Double", date: "1999", trackNumber: 1, discNumber: 2, discTotal: 2),
        ]))
        let albums = try store.albums()
        #expect(albums.count == 1)
        #expect(albums.first?.discCount == 2 && albums.first?.trackCount == 3)
        let order = try store.tracks(albumID: try #require(albums.first).id).map(\.title)
        #expect(order == ["d1t1", "d1t2", "d2t1"])
    }

    @Test func albumWithoutAlbumArtistGroupsByArtist() throws {
        try store.save(batch("/m/solo", [TrackTags(title: "1", artist: "Solo", album: "First"),
                                         TrackTags(title: "2", artist: "Solo", album: "First")]))
        try store.save(batch("/m/other", [TrackTags(title: "1", artist: "Other", album: "First")]))
        let albums = try store.albums()
        #expect(albums.map(\.artist) == ["Other", "Solo"])
    }

    @Test func variousArtistsCompilationIsOneAlbum() throws {
        try store.save(batch("/m/comp", [TrackTags(title: "1", artist: "A", album: "Now 99"),
                                         TrackTags(title: "2", artist: "B", album: "Now 99"),
                                         TrackTags(title: "3", artist: "C", album: "Now 99")]))
        let albums = try store.albums()
        #expect(albums.count == 1)
        #expect(albums.first?.artist == "Various Artists" && albums.first?.isCompilation == true)
        #expect(try store.counts().artists == 4)
    }

    @Test func trackOrderFollowsDiscAndTrackNumbers() throws {
        try store.save(batch("/m/o", [TrackTags(title: "three", artist: "X", album: "O", trackNumber: 3),
                                      TrackTags(title: "one", artist: "X", album: "O", trackNumber: 1),
                                      TrackTags(title: "two", artist: "X", album: "O", trackNumber: 2)]))
        let album = try #require(try store.albums().first)
        #expect(try store.tracks(albumID: album.id).map(\.title) == ["one", "two", "three"])
    }

    @Test func rescanUpdatesInPlaceAndDropsEmptiedAlbums() throws {
        try store.save(batch("/m/r", [TrackTags(title: "1", artist: "X", album: "Old Name")]))
        try store.save(batch("/m/r", [TrackTags(title: "1", artist: "X", album: "New Name")]))
        #expect(try store.albums().map(\.title) == ["New Name"])
        #expect(try store.counts().tracks == 1)
    }

    /// The first track names the album; later ones (in the same batch or a later one) fill in a missing date and add
    /// their genres, and one bringing nothing new changes nothing (the import skips that update: issue 30). The album
    /// is one by its MusicBrainz id (a tagged album's identity holds its year, so only such an album can lack a date).
    @Test func laterTracksFillInTheAlbumsDateAndAddTheirGenres() throws {
        func t(_ title: String, genre: String? = nil, date: String? = nil) -> TrackTags {
            TrackTags(title: title, artist: "Band", album: "Double", genre: genre, date: date, musicBrainzAlbumID: "0d0b")
        }
        try store.save(batch("/m/d1", [t("1", genre: "Rock"), t("2", genre: "rock")]))
        var album = try #require(try store.albums().first)
        #expect(album.date == nil && album.year == nil && album.genre == "Rock")
        try store.save(batch("/m/d2", [t("3", genre: "Rock", date: "1999-05-01"), t("4", genre: "Jazz", date: "2004"), t("5")]))
        #expect(try store.albums().count == 1)
        album = try #require(try store.albums().first)
        #expect(album.date == "1999-05-01" && album.year == 1999)
        #expect(album.genre == "Rock; Jazz")
    }

    @Test func failuresAreRecordedAndClearedWhenTheFileReadsAgain() throws {
        try store.save(ScanBatch(folder: "/m/f", tracks: [], failures: [ScanFailure(path: "/m/f/1.flac", reason: "truncated")]))
        #expect(try store.scanFailures() == [ScanFailure(path: "/m/f/1.flac", reason: "truncated")])
        try store.save(batch("/m/f", [TrackTags(title: "1", artist: "X", album: "F")]))
        #expect(try store.scanFailures().isEmpty)
    }

    @Test func resolveAlbumByIdTitleOrWords() throws {
        try store.save(batch("/m/queen", [TrackTags(title: "a", artist: "Queen", albumArtist: "Queen", album: "Greatest Hits")]))
        try store.save(batch("/m/abba", [TrackTags(title: "b", artist: "ABBA", albumArtist: "ABBA", album: "Greatest Hits")]))
        try store.save(batch("/m/q2", [TrackTags(title: "c", artist: "Queen", albumArtist: "Queen", album: "Innuendo")]))
        #expect(try store.resolveAlbum("innuendo").title == "Innuendo")
        #expect(try store.resolveAlbum("queen greatest").artist == "Queen")
        let id = try store.resolveAlbum("abba").id
        #expect(try store.resolveAlbum(String(id)).artist == "ABBA")
        #expect(throws: StoreError.self) { try store.resolveAlbum("greatest hits") }
        #expect(throws: StoreError.self) { try store.resolveAlbum("nothing like this") }
    }

    @Test func reopeningKeepsDataAndSchema() throws {
        try store.save(batch("/m/k", [TrackTags(title: "1", artist: "X", album: "Kept")]))
        let again = try LibraryStore(url: URL(fileURLWithPath: store.path))
        #expect(try again.albums().map(\.title) == ["Kept"])
    }

    @Test func unopenableDatabaseIsAClearError() throws {
        let blocker = dir.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let error = #expect(throws: StoreError.self) { try LibraryStore(url: blocker.appendingPathComponent("library.sqlite")) }
        #expect(String(describing: error).contains(blocker.path))
    }
}
