import CrateDomain
import Foundation
import Testing

@Suite struct AlbumGroupingTests {
    let folder = URL(fileURLWithPath: "/music/Some Folder")

    @Test func sameTitleDifferentArtistsStayApart() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "Queen", albumArtist: "Queen", album: "Greatest Hits", date: "1981"),
            TrackTags(artist: "ABBA", albumArtist: "ABBA", album: "Greatest Hits", date: "1981"),
        ], folder: folder)
        #expect(keys[0].identity != keys[1].identity)
    }

    @Test func discsOfOneAlbumShareTheKey() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "Band", album: "Double", date: "1999", discNumber: 1),
            TrackTags(artist: "Band", album: "Double", date: "1999-03-01", discNumber: 2),
        ], folder: folder)
        #expect(keys[0].identity == keys[1].identity)
    }

    @Test func withoutAlbumArtistTheTrackArtistGroups() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "Solo", album: "First"), TrackTags(artist: "Solo", album: "First"),
        ], folder: folder)
        #expect(keys[0].artist == "Solo" && keys[0].identity == keys[1].identity && !keys[0].isCompilation)
    }

    @Test func majorityArtistKeepsAFeaturingTrackInTheAlbum() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "Solo", album: "First"), TrackTags(artist: "Solo", album: "First"),
            TrackTags(artist: "Solo feat. Guest", album: "First"),
        ], folder: folder)
        #expect(Set(keys.map(\.identity)).count == 1 && keys[2].artist == "Solo")
    }

    @Test func manyArtistsWithoutAlbumArtistMakeVariousArtists() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "A", album: "Hits 1999"), TrackTags(artist: "B", album: "Hits 1999"),
            TrackTags(artist: "C", album: "Hits 1999"),
        ], folder: folder)
        #expect(Set(keys.map(\.identity)).count == 1)
        #expect(keys[0].artist == "Various Artists" && keys[0].isCompilation)
    }

    @Test func compilationFlagMakesVariousArtists() {
        let keys = AlbumGrouping.keys(for: [TrackTags(artist: "A", album: "Mix", isCompilation: true)], folder: folder)
        #expect(keys[0].artist == "Various Artists" && keys[0].isCompilation)
    }

    @Test func musicBrainzIDDecidesAlone() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "A", albumArtist: "A", album: "X", musicBrainzAlbumID: "ID-1"),
            TrackTags(artist: "A", albumArtist: "A (remaster credit)", album: "X (Deluxe)", musicBrainzAlbumID: "id-1"),
        ], folder: folder)
        #expect(keys[0].identity == "mb:id-1" && keys[1].identity == "mb:id-1")
    }

    @Test func untaggedAlbumIsNamedAfterItsFolder() {
        let keys = AlbumGrouping.keys(for: [TrackTags(title: "x")], folder: folder)
        #expect(keys[0].title == "Some Folder" && keys[0].artist == "Unknown Artist")
        #expect(keys[0].identity == "folder:/music/Some Folder")
    }

    @Test func caseAndSpacingDoNotSplitAnAlbum() {
        let keys = AlbumGrouping.keys(for: [
            TrackTags(artist: "The Band", albumArtist: "The Band", album: "Big  Album"),
            TrackTags(artist: "The Band", albumArtist: "the band", album: "big album"),
        ], folder: folder)
        #expect(keys[0].identity == keys[1].identity)
    }
}
