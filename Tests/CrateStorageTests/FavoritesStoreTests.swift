import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Favorites of every kind and album dislikes, in a real library database.
@Suite struct FavoritesStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws {
        fx = try StoreFixture("crate-favorites")
    }

    func at(_ minutes: Double) -> Date { StoreFixture.epoch.addingTimeInterval(minutes * 60) }

    /// Four albums by three artists (Abba, The Beatles twice, Cream), two tracks each.
    func saveLibrary() throws {
        for (folder, artist, album) in [("/m/arrival", "Abba", "Arrival"), ("/m/abbey", "The Beatles", "Abbey Road"),
                                        ("/m/help", "The Beatles", "Help!"), ("/m/gears", "Cream", "Disraeli Gears")] {
            try fx.save(folder, [TrackTags(title: "\(album) one", artist: artist, albumArtist: artist, album: album, trackNumber: 1),
                                 TrackTags(title: "\(album) two", artist: artist, albumArtist: artist, album: album, trackNumber: 2)])
        }
    }

    @Test func everyKindCanBeAFavorite() throws {
        try saveLibrary()
        let album = try fx.album("Abbey Road")
        let track = try #require(try store.tracks(albumID: album.id).first)
        let artist = try fx.artist("Cream")
        let playlist = try store.createPlaylist(name: "Mix")

        try store.setOpinion(.track, id: track.id, .favorite, at: at(1))
        try store.setOpinion(.album, id: album.id, .favorite, at: at(2))
        try store.setOpinion(.artist, id: artist.id, .favorite, at: at(3))
        try store.setOpinion(.playlist, id: playlist.id, .favorite, at: at(4))

        #expect(try store.opinion(.track, id: track.id) == .favorite)
        #expect(try store.opinion(.album, id: album.id) == .favorite)
        #expect(try store.opinion(.artist, id: artist.id) == .favorite)
        #expect(try store.opinion(.playlist, id: playlist.id) == .favorite)
        // The items say so themselves.
        #expect(try store.track(id: track.id)?.favorite == true)
        #expect(try store.album(id: album.id)?.opinion == .favorite)
        #expect(try store.artist(id: artist.id)?.favorite == true)
        #expect(try store.playlist(id: playlist.id)?.favorite == true)
        #expect(try store.tracks(albumID: album.id).map(\.favorite) == [true, false])

        let all = try store.favorites()
        #expect(all.tracks.map(\.id) == [track.id])
        #expect(all.albums.map(\.id) == [album.id])
        #expect(all.artists.map(\.id) == [artist.id])
        #expect(all.playlists.map(\.id) == [playlist.id])
        #expect(all.dislikedAlbums.isEmpty)

        // Clearing removes it.
        for (kind, id) in [(FavoriteKind.track, track.id), (.album, album.id), (.artist, artist.id), (.playlist, playlist.id)] {
            try store.setOpinion(kind, id: id, nil)
            #expect(try store.opinion(kind, id: id) == nil)
        }
        let none = try store.favorites()
        #expect(none.tracks.isEmpty && none.albums.isEmpty && none.artists.isEmpty && none.playlists.isEmpty)
    }

    @Test func likeAndDislikeOfAnAlbumExcludeEachOther() throws {
        try saveLibrary()
        let album = try fx.album("Help!")

        try store.setOpinion(.album, id: album.id, .favorite, at: at(1))
        try store.setOpinion(.album, id: album.id, .dislike, at: at(2))
        #expect(try store.opinion(.album, id: album.id) == .dislike)
        var all = try store.favorites()
        #expect(all.albums.isEmpty && all.dislikedAlbums.map(\.id) == [album.id])

        try store.setOpinion(.album, id: album.id, .favorite, at: at(3))
        #expect(try store.opinion(.album, id: album.id) == .favorite)
        all = try store.favorites()
        #expect(all.albums.map(\.id) == [album.id] && all.dislikedAlbums.isEmpty)
        #expect(try store.album(id: album.id)?.opinion == .favorite)
    }

    @Test func onlyAlbumsCanBeDisliked() throws {
        try saveLibrary()
        let album = try fx.album("Arrival")
        let track = try #require(try store.tracks(albumID: album.id).first)
        let artist = try fx.artist("Abba")
        let playlist = try store.createPlaylist(name: "Mix")
        for (kind, id) in [(FavoriteKind.track, track.id), (.artist, artist.id), (.playlist, playlist.id)] {
            let error = #expect(throws: StoreError.self) { try store.setOpinion(kind, id: id, .dislike) }
            #expect(error.map(String.init(describing:)) == "only albums can be disliked")
            #expect(try store.opinion(kind, id: id) == nil)
        }
        // A favorite stays a favorite when a dislike is refused.
        try store.setOpinion(.track, id: track.id, .favorite)
        #expect(throws: StoreError.self) { try store.setOpinion(.track, id: track.id, .dislike) }
        #expect(try store.opinion(.track, id: track.id) == .favorite)
    }

    @Test func opinionsOfUnknownItemsAreRefused() throws {
        try saveLibrary()
        #expect(throws: StoreError.self) { try store.setOpinion(.track, id: 9999, .favorite) }
        #expect(throws: StoreError.self) { try store.setOpinion(.album, id: 9999, .dislike) }
        #expect(throws: StoreError.self) { try store.setOpinion(.artist, id: 9999, .favorite) }
        #expect(throws: StoreError.self) { try store.setOpinion(.playlist, id: 9999, .favorite) }
        #expect(try store.opinion(.album, id: 9999) == nil)
    }

    @Test func dislikedAlbumsAreLeftOutOfAlbumListsUnlessAskedFor() throws {
        try saveLibrary()
        let help = try fx.album("Help!")
        try store.setOpinion(.album, id: help.id, .dislike)
        #expect(try store.albums().map(\.title) == ["Arrival", "Abbey Road", "Disraeli Gears"])
        #expect(try store.albums(includeDisliked: true).map(\.title) == ["Arrival", "Abbey Road", "Help!", "Disraeli Gears"])
        let beatles = try fx.artist("The Beatles")
        #expect(try store.albums(artistID: beatles.id).map(\.title) == ["Abbey Road"])
        #expect(try store.albums(includeDisliked: true).first { $0.id == help.id }?.opinion == .dislike)
        // Its tracks stay playable.
        #expect(try store.tracks(albumID: help.id).count == 2)
        try store.setOpinion(.album, id: help.id, nil)
        #expect(try store.albums().count == 4)
    }

    @Test func favoriteTracksAreThePseudoPlaylistNewestFirst() throws {
        try saveLibrary()
        let tracks = try store.tracks(sort: ListSort(.title))
        try #require(tracks.count == 8)
        let picks = [tracks[5], tracks[0], tracks[3]]
        for (i, track) in picks.enumerated() {
            try store.setOpinion(.track, id: track.id, .favorite, at: at(Double(i + 1)))
        }
        #expect(try store.favoriteTracks().map(\.id) == picks.reversed().map(\.id))
        #expect(try store.favoriteTracks().allSatisfy(\.favorite))
        #expect(try store.favorites().tracks.map(\.id) == picks.reversed().map(\.id))

        // Favoriting again keeps the original time; unfavoriting and favoriting again makes it the newest.
        try store.setOpinion(.track, id: picks[0].id, .favorite, at: at(10))
        #expect(try store.favoriteTracks().map(\.id) == [picks[2].id, picks[1].id, picks[0].id])
        try store.setOpinion(.track, id: picks[0].id, nil)
        try store.setOpinion(.track, id: picks[0].id, .favorite, at: at(11))
        #expect(try store.favoriteTracks().map(\.id) == [picks[0].id, picks[2].id, picks[1].id])
    }

    @Test func favoritesOfEachKindAreListedNewestFirst() throws {
        try saveLibrary()
        let titles = ["Arrival", "Disraeli Gears", "Abbey Road"]
        for (i, title) in titles.enumerated() {
            try store.setOpinion(.album, id: try fx.album(title).id, .favorite, at: at(Double(i)))
        }
        #expect(try store.favorites().albums.map(\.title) == titles.reversed())
        let cream = try fx.artist("Cream"), abba = try fx.artist("Abba")
        try store.setOpinion(.artist, id: cream.id, .favorite, at: at(1))
        try store.setOpinion(.artist, id: abba.id, .favorite, at: at(2))
        #expect(try store.favorites().artists.map(\.name) == ["Abba", "Cream"])
    }

    @Test func favoritesComeFirstWhenAsked() throws {
        try saveLibrary()
        try store.setOpinion(.album, id: try fx.album("Disraeli Gears").id, .favorite)
        try store.setOpinion(.album, id: try fx.album("Abbey Road").id, .favorite)
        #expect(try store.albums(sort: ListSort(.title)).map(\.title) == ["Abbey Road", "Arrival", "Disraeli Gears", "Help!"])
        #expect(try store.albums(sort: ListSort(.title, favoritesFirst: true)).map(\.title)
                == ["Abbey Road", "Disraeli Gears", "Arrival", "Help!"])
        #expect(try store.albums(sort: ListSort(.title, .descending, favoritesFirst: true)).map(\.title)
                == ["Disraeli Gears", "Abbey Road", "Help!", "Arrival"])

        try store.setOpinion(.artist, id: try fx.artist("Cream").id, .favorite)
        #expect(try store.albumArtists().map(\.name) == ["Abba", "The Beatles", "Cream"])
        #expect(try store.albumArtists(favoritesFirst: true).map(\.name) == ["Cream", "Abba", "The Beatles"])
        #expect(try store.albumArtists(order: .descending, favoritesFirst: true).map(\.name) == ["Cream", "The Beatles", "Abba"])

        for name in ["Alpha", "Beta", "Gamma"] { _ = try store.createPlaylist(name: name) }
        try store.setOpinion(.playlist, id: try store.resolvePlaylist("Gamma").id, .favorite)
        #expect(try store.playlists().map(\.name) == ["Alpha", "Beta", "Gamma"])
        #expect(try store.playlists(sort: ListSort(.title, favoritesFirst: true)).map(\.name) == ["Gamma", "Alpha", "Beta"])

        let tracks = try store.tracks(sort: ListSort(.title))
        let last = try #require(tracks.last)
        try store.setOpinion(.track, id: last.id, .favorite)
        #expect(try store.tracks(sort: ListSort(.title, favoritesFirst: true)).map(\.id) == [last.id] + tracks.dropLast().map(\.id))
    }

    @Test func aDislikedAlbumIsNotPutFirst() throws {
        try saveLibrary()
        try store.setOpinion(.album, id: try fx.album("Help!").id, .dislike)
        try store.setOpinion(.album, id: try fx.album("Disraeli Gears").id, .favorite)
        #expect(try store.albums(sort: ListSort(.title, favoritesFirst: true), includeDisliked: true).map(\.title)
                == ["Disraeli Gears", "Abbey Road", "Arrival", "Help!"])
    }

    @Test func deletingAnItemRemovesItsOpinion() throws {
        let track = try fx.saveAlbum("/m/solo", title: "Only Song", artist: "One-Off", album: "Single")
        let album = try fx.album("Single")
        let artist = try fx.artist("One-Off")
        try store.setOpinion(.track, id: track.id, .favorite)
        try store.setOpinion(.album, id: album.id, .favorite)
        try store.setOpinion(.artist, id: artist.id, .favorite)
        _ = try store.deleteTrack(id: track.id)
        #expect(try store.opinion(.track, id: track.id) == nil)
        #expect(try store.opinion(.album, id: album.id) == nil)
        #expect(try store.opinion(.artist, id: artist.id) == nil)

        // A new item that gets the same id starts without an opinion.
        let again = try fx.saveAlbum("/m/other", title: "New Song", artist: "New Band", album: "New Album")
        #expect(again.favorite == false)
        #expect(try fx.album("New Album").opinion == nil)
        #expect(try fx.artist("New Band").favorite == false)
        let none = try store.favorites()
        #expect(none.tracks.isEmpty && none.albums.isEmpty && none.artists.isEmpty)

        let list = try store.createPlaylist(name: "Mix")
        try store.setOpinion(.playlist, id: list.id, .favorite)
        try store.deletePlaylist(id: list.id)
        #expect(try store.opinion(.playlist, id: list.id) == nil)
        #expect(try store.createPlaylist(name: "Another").favorite == false)
    }

    @Test func anAlbumEmptiedByARescanTakesItsDislikeAlong() throws {
        try fx.saveAlbum("/m/r", title: "Song", artist: "Band", album: "Old Name")
        let old = try fx.album("Old Name")
        try store.setOpinion(.album, id: old.id, .dislike)
        try fx.saveAlbum("/m/r", title: "Song", artist: "Band", album: "New Name")
        #expect(try store.opinion(.album, id: old.id) == nil)
        #expect(try store.favorites().dislikedAlbums.isEmpty)
        #expect(try store.albums().map(\.title) == ["New Name"])
    }
}
