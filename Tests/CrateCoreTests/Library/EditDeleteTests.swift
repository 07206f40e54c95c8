import CrateCore
import CrateDomain
import CrateStorage
import CrateTestSupport
import Foundation
import Testing

@Suite struct EditDeleteTests {
    @Test func anOverrideChangesDisplayButNotAlbumGrouping() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        let first = try #require(try runtime.store.tracks(albumID: 1).first)
        let edited = try runtime.library.edit(trackID: first.id, TrackEdit(title: "Better Title", artist: "Guest", album: "Another Album"))
        #expect(edited.title == "Better Title" && edited.artist == "Guest" && edited.album == "Another Album" && edited.edited)
        // Still one album, grouped by the file's tags, and the file itself is unchanged.
        let albums = try runtime.store.albums()
        #expect(albums.count == 1 && albums[0].title == "Record" && albums[0].trackCount == 2)
        #expect(try runtime.store.tracks(albumID: 1).map(\.title) == ["Better Title", "Record 2"])
        let copy = try #require(first.path)
        #expect(try LibraryFixture.sha(URL(fileURLWithPath: copy)) == LibraryFixture.sha(source.appendingPathComponent("01.flac")))
        #expect(try runtime.decoders.probe(URL(fileURLWithPath: copy)).tags.title == "Record 1")
        // A corrected track number reorders the album; reset returns to the tags.
        _ = try runtime.library.edit(trackID: first.id, TrackEdit(trackNumber: 3))
        #expect(try runtime.store.tracks(albumID: 1).map(\.title) == ["Record 2", "Better Title"])
        let reset = try runtime.library.edit(trackID: first.id, TrackEdit(clear: TrackEdit.fields))
        #expect(reset.title == "Record 1" && reset.album == "Record" && !reset.edited)
        #expect(throws: StoreError.self) { try runtime.library.edit(trackID: first.id, TrackEdit(clear: ["colour"])) }
    }

    @Test func referenceImportsCannotBeEdited() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(throws: LibraryError.self) { try runtime.library.edit(trackID: 1, TrackEdit(title: "x")) }
    }

    @Test func deletingACopiedTrackDeletesItsLibraryFile() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        let tracks = try runtime.store.tracks(albumID: 1)
        let deleted = try runtime.library.deleteTracks([tracks[0].id])
        #expect(deleted == [try #require(tracks[0].path)])
        #expect(!FileManager.default.fileExists(atPath: deleted[0]))
        #expect(f.files(under: source) == ["01.flac", "02.flac"])   // the user's originals are not ours to delete
        #expect(try runtime.store.tracks(albumID: 1).count == 1)
        // The last track takes the album and its now-empty folders with it.
        _ = try runtime.library.deleteTracks([tracks[1].id])
        #expect(try runtime.store.albums().isEmpty)
        #expect(f.files(under: f.settings.libraryFolder).isEmpty)
        #expect(throws: StoreError.self) { try runtime.library.deleteTracks([tracks[1].id]) }
    }

    @Test func deletingAReferencedTrackLeavesItsFile() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(try runtime.library.deleteTracks([1]).isEmpty)
        #expect(f.files(under: source) == ["01.flac", "02.flac"])
        #expect(try runtime.store.counts().tracks == 1)
        // A rescan does not bring a deleted track back; importing the folder again does.
        #expect(try runtime.library.rescan().imported == 0)
        #expect(try runtime.library.importPaths([f.music.path]).imported == 1)
    }
}
