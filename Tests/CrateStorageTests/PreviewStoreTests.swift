import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Issue 17 item 7: a catalog album's previews are stream tracks in a hidden album of their own: playable, in history,
/// but never among the library's albums, artists, tracks, counts, search results, feeds or recent albums; reused when
/// the album is played again, refreshed from the catalog each time.
@Suite struct PreviewStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws {
        fx = try StoreFixture("crate-previews")
        // The library already has an album by the catalog album's artist: the artist is shared, its counts are not.
        try fx.save("/m/kind", [TrackTags(title: "So What", artist: "Miles Davis", albumArtist: "Miles Davis", album: "Kind of Blue", trackNumber: 1)])
    }

    static let album = Album(id: 1_440_857_781, identity: "applemusic:1440857781", title: "Sketches of Spain", artist: "Miles Davis",
                             date: "1960-07-18", year: 1960, genre: "Jazz", isCompilation: false, trackCount: 3, discCount: 1,
                             duration: 900, addedAt: Date(timeIntervalSince1970: 0), source: "applemusic", externalID: "1440857781")

    static func song(_ n: Int, _ title: String, preview: String?, artist: String = "Miles Davis") -> Track {
        Track(id: 1_440_857_781_00 + Int64(n), ref: TrackRef(source: "applemusic", id: "14408577\(n)"), albumID: 1_440_857_781,
              title: title, artist: artist, albumArtist: "Miles Davis", album: "Sketches of Spain", genre: "Jazz", date: "1960-07-18",
              trackNumber: n, trackTotal: 3, discNumber: 1, discTotal: 1, duration: Double(300 + n),
              info: StreamInfo(codec: "aac", sampleRate: 44_100, channels: 2), path: nil, playableInFull: false, previewURL: preview)
    }

    static let songs = [
        song(1, "Concierto de Aranjuez", preview: "https://audio.example/p/1.m4a"),
        song(2, "Will o' the Wisp", preview: nil),
        song(3, "The Pan Piper", preview: "https://audio.example/p/3.m4a", artist: "Miles Davis & Gil Evans"),
    ]

    @Test func previewsAreStoredInAlbumOrderInAHiddenAlbum() throws {
        let ids = try store.storePreviews(of: Self.album, tracks: Self.songs)
        #expect(ids.count == 2, "the song without a preview has no track")
        let first = try #require(try store.track(id: ids[0]))
        let second = try #require(try store.track(id: ids[1]))
        #expect(first.ref == TrackRef(source: "https", id: "https://audio.example/p/1.m4a"))
        #expect(first.title == "Concierto de Aranjuez" && first.album == "Sketches of Spain" && first.albumArtist == "Miles Davis")
        #expect(first.trackNumber == 1 && first.discNumber == 1 && first.duration == 301 && first.info.codec == "aac")
        #expect(second.title == "The Pan Piper" && second.artist == "Miles Davis & Gil Evans" && second.trackNumber == 3)
        #expect(first.albumID == second.albumID)
        #expect(try store.previewCatalogAlbum(albumID: first.albumID) == "applemusic:1440857781")
        #expect(try store.album(id: first.albumID)?.identity == "preview:applemusic:1440857781")
        #expect(try store.tracks(albumID: first.albumID).map(\.id) == ids)
        // The library's own album is no preview album.
        let library = try #require(try store.albums().first)
        #expect(try store.previewCatalogAlbum(albumID: library.id) == nil)
        // The player's status reads the same in one read.
        let ownTrack = try #require(try store.tracks(albumID: library.id).first)
        let entries = try store.replaceQueue(with: [ids[1], ownTrack.id, ids[0]])
        let preview = try store.playerView(entryID: entries[0])
        #expect(preview.entry?.track.title == "The Pan Piper" && preview.queueLength == 3)
        #expect(preview.previewAlbum == "applemusic:1440857781")
        let own = try store.playerView(entryID: entries[1])
        #expect(own.entry?.track.id == ownTrack.id && own.previewAlbum == nil && own.queueLength == 3)
        let none = try store.playerView(entryID: nil)
        #expect(none.entry == nil && none.previewAlbum == nil && none.queueLength == 3)
    }

    @Test func previewsStayOutOfTheLibrarysListsCountsSearchAndFeeds() throws {
        let ids = try store.storePreviews(of: Self.album, tracks: Self.songs)
        var other = Self.album
        other.externalID = "99"
        other.artist = "Gil Evans"
        _ = try store.storePreviews(of: other, tracks: [Self.song(1, "Prelude", preview: "https://audio.example/p/99-1.m4a")])
        #expect(try store.albums().map(\.title) == ["Kind of Blue"])
        #expect(try store.albumFacts().count == 1)
        #expect(try store.tracks(sort: ListSort(.title)).map(\.title) == ["So What"])
        let artists = try store.albumArtists()
        #expect(artists.map(\.name) == ["Miles Davis"])
        #expect(artists.first?.albumCount == 1 && artists.first?.trackCount == 1, "\(artists)")
        let counts = try store.counts()
        #expect(counts.albums == 1 && counts.tracks == 1 && counts.artists == 1, "\(counts)")
        #expect(try store.search(try SearchQuery.parse("spain"), text: "spain").groups.isEmpty)
        #expect(try store.search(try SearchQuery.parse("pan piper"), text: "pan piper").groups.isEmpty)
        // An artist known only from previews is not found; the shared one still is, once.
        #expect(try store.search(try SearchQuery.parse("gil evans"), text: "gil evans").group(.artists) == nil)
        #expect(try store.search(try SearchQuery.parse("artist:miles"), text: "artist:miles").group(.artists)?.total == 1)
        // A finished preview is in history, but its album is no recent album and its artist no top artist.
        try store.recordPlay(trackID: ids[0], at: StoreFixture.date(days: 1))
        let home = try store.home(now: StoreFixture.date(days: 2))
        #expect(home.recentItems.isEmpty)
        #expect(home.recentPlays.map(\.track.id) == [ids[0]])
        #expect(home.topArtists.isEmpty)
        #expect(try store.history().map(\.track.id) == [ids[0]])
    }

    @Test func playingAgainReusesTheTracksAndRefreshesThem() throws {
        let ids = try store.storePreviews(of: Self.album, tracks: Self.songs)
        try store.setOpinion(.track, id: ids[1], .favorite)
        var renamed = Self.songs
        renamed[0].title = "Concierto de Aranjuez (Adagio)"
        renamed[0].duration = 990
        #expect(try store.storePreviews(of: Self.album, tracks: renamed) == ids)
        #expect(try store.track(id: ids[0])?.title == "Concierto de Aranjuez (Adagio)" && (try store.track(id: ids[0])?.duration) == 990)
        // A preview URL that changed is a new track; the old one goes unless something keeps it (here: nothing).
        var moved = renamed
        moved[0].previewURL = "https://audio.example/p/1-v2.m4a"
        let again = try store.storePreviews(of: Self.album, tracks: moved)
        #expect(again.count == 2 && again[0] != ids[0] && again[1] == ids[1])
        #expect(try store.track(id: ids[0]) == nil)
        #expect(try store.track(id: again[0])?.ref.id == "https://audio.example/p/1-v2.m4a")
        // A favorite (or the queue, a playlist, history) keeps a track the catalog no longer lists.
        moved[2].previewURL = "https://audio.example/p/3-v2.m4a"
        _ = try store.storePreviews(of: Self.album, tracks: moved)
        #expect(try store.track(id: ids[1])?.favorite == true)
    }

    @Test func aStationsURLStaysTheStations() throws {
        let station = try store.addStation(name: "Preview Radio", url: try #require(URL(string: "https://audio.example/p/1.m4a")), artworkURL: nil)
        let ids = try store.storePreviews(of: Self.album, tracks: Self.songs)
        #expect(ids.first == station.trackID)
        #expect(try store.track(id: station.trackID)?.title == "Preview Radio")
        #expect(try store.stations().map(\.name) == ["Preview Radio"])
    }
}
