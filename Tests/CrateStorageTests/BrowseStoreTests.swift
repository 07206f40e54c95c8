import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Sorted album, track and artist lists of a real library database.
@Suite struct BrowseStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws {
        fx = try StoreFixture("crate-browse")
    }

    func day(_ n: Double) -> Date { StoreFixture.date(days: n) }

    /// Six albums, imported one a day in this order:
    /// Arrival (Abba, 1976), Abbey Road (The Beatles, 1969), Disraeli Gears (Cream, 1967),
    /// Low (David Bowie, sort tag "Bowie, David", 1977), Help! (The Beatles, 1965), Untitled (Zed, no year).
    func saveLibrary() throws {
        func t(_ title: String, _ artist: String, _ album: String, _ date: String?, n: Int = 1,
               sort: String? = nil) -> TrackTags {
            TrackTags(title: title, artist: artist, albumArtist: artist, album: album, date: date, trackNumber: n,
                      albumArtistSort: sort)
        }
        try fx.save("/m/arrival", [t("Dancing Queen", "Abba", "Arrival", "1976")], at: day(1))
        try fx.save("/m/abbey", [t("Come Together", "The Beatles", "Abbey Road", "1969"),
                                 t("Something", "The Beatles", "Abbey Road", "1969", n: 2)], at: day(2))
        try fx.save("/m/gears", [t("Sunshine of Your Love", "Cream", "Disraeli Gears", "1967")], at: day(3))
        try fx.save("/m/low", [t("Sound and Vision", "David Bowie", "Low", "1977", sort: "Bowie, David")], at: day(4))
        try fx.save("/m/help", [t("Yesterday", "The Beatles", "Help!", "1965")], at: day(5))
        try fx.save("/m/untitled", [t("Anything", "Zed", "Untitled", nil)], at: day(6))
    }

    @Test(arguments: [
        (AlbumSort.title, ["Abbey Road", "Arrival", "Disraeli Gears", "Help!", "Low", "Untitled"],
         ["Untitled", "Low", "Help!", "Disraeli Gears", "Arrival", "Abbey Road"]),
        (.added, ["Arrival", "Abbey Road", "Disraeli Gears", "Low", "Help!", "Untitled"],
         ["Untitled", "Help!", "Low", "Disraeli Gears", "Abbey Road", "Arrival"]),
        // abba, beatles (oldest album first), "bowie, david", cream, zed.
        (.artist, ["Arrival", "Help!", "Abbey Road", "Low", "Disraeli Gears", "Untitled"],
         ["Untitled", "Disraeli Gears", "Low", "Help!", "Abbey Road", "Arrival"]),
        // An album without a year comes last either way.
        (.year, ["Help!", "Disraeli Gears", "Abbey Road", "Arrival", "Low", "Untitled"],
         ["Low", "Arrival", "Abbey Road", "Disraeli Gears", "Help!", "Untitled"]),
    ])
    func albumSorts(key: AlbumSort, ascending: [String], descending: [String]) throws {
        try saveLibrary()
        #expect(try store.albums(sort: ListSort(key, .ascending)).map(\.title) == ascending)
        #expect(try store.albums(sort: ListSort(key, .descending)).map(\.title) == descending)
    }

    @Test func albumsSortByArtistByDefault() throws {
        try saveLibrary()
        #expect(try store.albums().map(\.title) == ["Arrival", "Help!", "Abbey Road", "Low", "Disraeli Gears", "Untitled"])
    }

    @Test func theBeatlesSortBetweenAbbaAndCream() throws {
        try fx.saveAlbum("/m/c", title: "c", artist: "Cream", album: "Fresh Cream")
        try fx.saveAlbum("/m/b", title: "b", artist: "The Beatles", album: "Revolver")
        try fx.saveAlbum("/m/a", title: "a", artist: "Abba", album: "Waterloo")
        try fx.saveAlbum("/m/t", title: "t", artist: "The", album: "Soul Mining")
        #expect(try store.albums(sort: ListSort(.artist)).map(\.artist) == ["Abba", "The Beatles", "Cream", "The"])
        #expect(try store.albumArtists().map(\.sortKey) == ["abba", "beatles", "cream", "the"])
    }

    @Test func sortTagsWinOverNames() throws {
        try saveLibrary()
        let bowie = try fx.artist("David Bowie")
        #expect(bowie.sortKey == "bowie, david")
        #expect(try fx.artist("The Beatles").sortKey == "beatles")
        // A track artist's own sort tag (ARTISTSORT / TSOP) counts as well.
        try fx.save("/m/prince", [TrackTags(title: "Kiss", artist: "Prince and the Revolution", album: "Parade",
                                            date: "1986", artistSort: "Prince")])
        #expect(try fx.artist("Prince and the Revolution").sortKey == "prince")
        #expect(try store.albumArtists().map(\.name)
                == ["Abba", "The Beatles", "David Bowie", "Cream", "Prince and the Revolution", "Zed"])
    }

    @Test func aSortTagSeenLaterUpdatesTheArtist() throws {
        try fx.saveAlbum("/m/1", title: "Heroes", artist: "David Bowie", album: "Heroes")
        try fx.saveAlbum("/m/2", title: "Cream Song", artist: "Cream", album: "Wheels of Fire")
        #expect(try store.albumArtists().map(\.name) == ["Cream", "David Bowie"])
        try fx.save("/m/3", [TrackTags(title: "Ashes", artist: "David Bowie", album: "Scary Monsters", artistSort: "Bowie, David")])
        #expect(try store.albumArtists().map(\.name) == ["David Bowie", "Cream"])
    }

    @Test(arguments: [
        (TrackSort.title, ["Anything", "Come Together", "Dancing Queen", "Something", "Sound and Vision",
                           "Sunshine of Your Love", "Yesterday"]),
        (.added, ["Dancing Queen", "Come Together", "Something", "Sunshine of Your Love", "Sound and Vision",
                  "Yesterday", "Anything"]),
        // abba; beatles by album year (Help! 1965, then Abbey Road 1969 in track order); bowie; cream; zed.
        (.artist, ["Dancing Queen", "Yesterday", "Come Together", "Something", "Sound and Vision",
                   "Sunshine of Your Love", "Anything"]),
    ])
    func trackSorts(key: TrackSort, ascending: [String]) throws {
        try saveLibrary()
        #expect(try store.tracks(sort: ListSort(key, .ascending)).map(\.title) == ascending)
        let descending = try store.tracks(sort: ListSort(key, .descending)).map(\.title)
        switch key {
        case .title:
            #expect(descending == ascending.reversed())
        case .added:
            // Tracks imported together keep a stable order among themselves (newest id first).
            #expect(descending == ["Anything", "Yesterday", "Sound and Vision", "Sunshine of Your Love", "Something",
                                   "Come Together", "Dancing Queen"])
        case .artist:
            // Artists reverse; an artist's tracks stay in album order.
            #expect(descending == ["Anything", "Sunshine of Your Love", "Sound and Vision", "Yesterday", "Come Together",
                                   "Something", "Dancing Queen"])
        }
    }

    @Test func trackListsPage() throws {
        try saveLibrary()
        let all = try store.tracks(sort: ListSort(.title)).map(\.title)
        let first = try store.tracks(sort: ListSort(.title), offset: 0, limit: 3).map(\.title)
        let rest = try store.tracks(sort: ListSort(.title), offset: 3, limit: 100).map(\.title)
        #expect(first + rest == all && first.count == 3)
    }

    @Test func anEditedArtistSortsUnderItsNewName() throws {
        try saveLibrary()
        let queen = try #require(try store.tracks(sort: ListSort(.title)).first { $0.title == "Dancing Queen" })
        try store.applyEdit(trackID: queen.id, TrackEdit(artist: "The Zombies"))
        let titles = try store.tracks(sort: ListSort(.artist)).map(\.title)
        // "zombies" sorts after "zed".
        #expect(titles.first == "Yesterday" && titles.last == "Dancing Queen")
        try store.applyEdit(trackID: queen.id, TrackEdit(clear: ["artist"]))
        #expect(try store.tracks(sort: ListSort(.artist)).map(\.title).first == "Dancing Queen")
    }

    @Test func albumArtistsAreOnlyArtistsWithAlbums() throws {
        try saveLibrary()
        // A compilation: its track artists are no album artists.
        try fx.save("/m/now", [TrackTags(title: "One", artist: "Alpha Band", album: "Now 99"),
                               TrackTags(title: "Two", artist: "Beta Band", album: "Now 99"),
                               TrackTags(title: "Three", artist: "Gamma Band", album: "Now 99")])
        let artists = try store.albumArtists()
        #expect(artists.map(\.name) == ["Abba", "The Beatles", "David Bowie", "Cream", "Various Artists", "Zed"])
        #expect(try store.albumArtists(order: .descending).map(\.name)
                == ["Zed", "Various Artists", "Cream", "David Bowie", "The Beatles", "Abba"])
        let beatles = try #require(artists.first { $0.name == "The Beatles" })
        #expect(beatles.albumCount == 2 && beatles.trackCount == 3 && !beatles.favorite)
        #expect(try fx.artist("Alpha Band").albumCount == 0)
        #expect(try fx.artist("Alpha Band").trackCount == 1)
    }

    @Test func albumsOfOneAlbumArtist() throws {
        try saveLibrary()
        let beatles = try fx.artist("The Beatles")
        #expect(try store.albums(artistID: beatles.id).map(\.title) == ["Help!", "Abbey Road"])
        #expect(try store.albums(sort: ListSort(.title), artistID: beatles.id).map(\.title) == ["Abbey Road", "Help!"])
        #expect(try store.albums(sort: ListSort(.year, .descending), artistID: beatles.id).map(\.title) == ["Abbey Road", "Help!"])
        let bowie = try fx.artist("David Bowie")
        #expect(try store.albums(artistID: bowie.id).map(\.title) == ["Low"])
        #expect(try store.albums(artistID: 9999).isEmpty)
    }

    @Test func resolveArtistByIdNameOrWords() throws {
        try saveLibrary()
        let beatles = try fx.artist("The Beatles")
        #expect(try store.resolveArtist(String(beatles.id)).name == "The Beatles")
        #expect(try store.resolveArtist("the beatles").id == beatles.id)
        #expect(try store.resolveArtist("beat").id == beatles.id)
        #expect(throws: StoreError.self) { try store.resolveArtist("nobody at all") }
    }
}
