import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Playlists in a real library database: names, manual order with duplicates, sorts and play times.
@Suite struct PlaylistStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }
    /// Four tracks, one album each: Come Together (The Beatles, Abbey Road, 1969), Billie Jean (Michael
    /// Jackson, Thriller, 1982), So What (Miles Davis, Kind of Blue, 1959), Anarchy in the U.K. (Sex
    /// Pistols, Never Mind the Bollocks, 1977).
    let come: Track, billie: Track, soWhat: Track, anarchy: Track

    init() throws {
        let fx = try StoreFixture("crate-playlists")
        self.fx = fx
        come = try fx.saveAlbum("/m/1", title: "Come Together", artist: "The Beatles", album: "Abbey Road", date: "1969")
        billie = try fx.saveAlbum("/m/2", title: "Billie Jean", artist: "Michael Jackson", album: "Thriller", date: "1982")
        soWhat = try fx.saveAlbum("/m/3", title: "So What", artist: "Miles Davis", album: "Kind of Blue", date: "1959")
        anarchy = try fx.saveAlbum("/m/4", title: "Anarchy in the U.K.", artist: "Sex Pistols",
                                   album: "Never Mind the Bollocks", date: "1977")
    }

    func at(_ minutes: Double) -> Date { StoreFixture.epoch.addingTimeInterval(3600 + minutes * 60) }

    func titles(_ id: Int64, _ sort: ListSort<PlaylistTrackSort> = ListSort(.manual)) throws -> [String] {
        try store.playlistEntries(id: id, sort: sort).map(\.track.title)
    }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return String(describing: error) }
        return "no error"
    }

    // MARK: - Names

    @Test func createRenameAndDelete() throws {
        let created = try store.createPlaylist(name: "  Road Trip ", at: at(1))
        #expect(created.name == "Road Trip")
        #expect(created.trackCount == 0 && created.duration == 0 && !created.favorite)
        #expect(created.createdAt == at(1) && created.updatedAt == at(1) && created.lastPlayedAt == nil)
        #expect(try store.resolvePlaylist("road trip").id == created.id)
        #expect(try store.resolvePlaylist(String(created.id)).name == "Road Trip")

        try store.renamePlaylist(id: created.id, to: "Night Drive", at: at(2))
        let renamed = try #require(try store.playlist(id: created.id))
        #expect(renamed.name == "Night Drive" && renamed.updatedAt == at(2) && renamed.createdAt == at(1))
        #expect(throws: StoreError.self) { try store.resolvePlaylist("Road Trip") }
        // Its own name in another case is fine.
        try store.renamePlaylist(id: created.id, to: "NIGHT DRIVE", at: at(3))
        #expect(try store.playlist(id: created.id)?.name == "NIGHT DRIVE")

        try store.deletePlaylist(id: created.id)
        #expect(try store.playlist(id: created.id) == nil)
        #expect(try store.playlists().isEmpty)
        #expect(message { try store.deletePlaylist(id: created.id) } == "no playlist matches '\(created.id)'")
        #expect(message { try store.renamePlaylist(id: created.id, to: "X") } == "no playlist matches '\(created.id)'")
        #expect(throws: StoreError.self) { try store.resolvePlaylist("Night Drive") }
    }

    @Test func duplicateNamesAreRefusedWithAClearError() throws {
        let first = try store.createPlaylist(name: "Road Trip")
        let other = try store.createPlaylist(name: "Chill")
        for name in ["Road Trip", "road trip", " ROAD TRIP "] {
            #expect(message { _ = try store.createPlaylist(name: name) } == "a playlist named '\(name.trimmingCharacters(in: .whitespaces))' exists already")
        }
        #expect(message { try store.renamePlaylist(id: other.id, to: "road trip") } == "a playlist named 'road trip' exists already")
        #expect(try store.playlists().map(\.name) == ["Chill", "Road Trip"])
        #expect(try store.playlist(id: first.id)?.name == "Road Trip")
    }

    @Test func theFavoritesNameIsReserved() throws {
        for name in ["Favorites", "favorites", "  FAVORITES "] {
            let text = message { _ = try store.createPlaylist(name: name) }
            #expect(text == "'Favorites' is the playlist of favorite tracks; choose another name")
        }
        let list = try store.createPlaylist(name: "Mine")
        #expect(message { try store.renamePlaylist(id: list.id, to: "Favorites") }.contains("'Favorites' is the playlist of favorite tracks"))
        #expect(message { _ = try store.createPlaylist(name: "   ") } == "a playlist needs a name")
        #expect(message { try store.renamePlaylist(id: list.id, to: "") } == "a playlist needs a name")
        #expect(try store.playlists().map(\.name) == ["Mine"])
        // Names that merely contain the word are fine.
        #expect(try store.createPlaylist(name: "Favorites 2024").name == "Favorites 2024")
    }

    // MARK: - Entries

    @Test func addAtTheEndAndAtAnIndex() throws {
        let list = try store.createPlaylist(name: "Mix", at: at(0))
        try store.addToPlaylist(id: list.id, trackIDs: [come.id, billie.id], now: at(1))
        #expect(try titles(list.id) == ["Come Together", "Billie Jean"])
        try store.addToPlaylist(id: list.id, trackIDs: [soWhat.id], at: 1, now: at(2))
        #expect(try titles(list.id) == ["So What", "Come Together", "Billie Jean"])
        try store.addToPlaylist(id: list.id, trackIDs: [anarchy.id, soWhat.id], at: 3, now: at(3))
        #expect(try titles(list.id) == ["So What", "Come Together", "Anarchy in the U.K.", "So What", "Billie Jean"])
        // Past the end appends.
        try store.addToPlaylist(id: list.id, trackIDs: [come.id], at: 99, now: at(4))
        let entries = try store.playlistEntries(id: list.id)
        #expect(entries.map(\.track.title) == ["So What", "Come Together", "Anarchy in the U.K.", "So What", "Billie Jean", "Come Together"])
        #expect(entries.map(\.position) == [1, 2, 3, 4, 5, 6])
        #expect(entries.map(\.addedAt) == [at(2), at(1), at(3), at(3), at(1), at(4)])

        let playlist = try #require(try store.playlist(id: list.id))
        #expect(playlist.trackCount == 6 && playlist.duration == 60)
        #expect(playlist.updatedAt == at(4) && playlist.createdAt == at(0))

        let error = #expect(throws: StoreError.self) { try store.addToPlaylist(id: list.id, trackIDs: [come.id, 9999]) }
        #expect(error.map(String.init(describing:))?.contains("9999") == true)
        #expect(try titles(list.id).count == 6)
        #expect(throws: StoreError.self) { try store.addToPlaylist(id: 9999, trackIDs: [come.id]) }
    }

    @Test func duplicatesAreAllowedAndRemovedOneByOne() throws {
        let list = try store.createPlaylist(name: "Loop")
        try store.addToPlaylist(id: list.id, trackIDs: [come.id, come.id, billie.id, come.id], now: at(1))
        #expect(try titles(list.id) == ["Come Together", "Come Together", "Billie Jean", "Come Together"])
        try store.removeFromPlaylist(id: list.id, at: [2], now: at(2))
        #expect(try titles(list.id) == ["Come Together", "Billie Jean", "Come Together"])
        try store.removeFromPlaylist(id: list.id, at: [3, 1, 3], now: at(3))
        #expect(try titles(list.id) == ["Billie Jean"])
        #expect(try store.playlistEntries(id: list.id).map(\.position) == [1])
        #expect(try store.playlist(id: list.id)?.updatedAt == at(3))

        let error = #expect(throws: StoreError.self) { try store.removeFromPlaylist(id: list.id, at: [2]) }
        #expect(error.map(String.init(describing:)) == "the playlist has 1 tracks; there is no track 2")
        #expect(try titles(list.id) == ["Billie Jean"])
    }

    @Test func reorderingMovesTheRightDuplicate() throws {
        let list = try store.createPlaylist(name: "Dupes")
        // The same track twice, told apart by when each was added.
        try store.addToPlaylist(id: list.id, trackIDs: [come.id], now: at(1))
        try store.addToPlaylist(id: list.id, trackIDs: [billie.id], now: at(2))
        try store.addToPlaylist(id: list.id, trackIDs: [come.id], now: at(3))
        try store.addToPlaylist(id: list.id, trackIDs: [soWhat.id], now: at(4))
        func order() throws -> [String] {
            try store.playlistEntries(id: list.id).map { "\($0.track.title)@\(Int($0.addedAt.timeIntervalSince(at(0)) / 60))" }
        }
        #expect(try order() == ["Come Together@1", "Billie Jean@2", "Come Together@3", "So What@4"])

        try store.movePlaylistEntry(id: list.id, from: 3, to: 1)
        #expect(try order() == ["Come Together@3", "Come Together@1", "Billie Jean@2", "So What@4"])
        try store.movePlaylistEntry(id: list.id, from: 2, to: 4)
        #expect(try order() == ["Come Together@3", "Billie Jean@2", "So What@4", "Come Together@1"])
        try store.movePlaylistEntry(id: list.id, from: 1, to: 3)
        #expect(try order() == ["Billie Jean@2", "So What@4", "Come Together@3", "Come Together@1"])
        // Removing the last place removes the instance that is there.
        try store.removeFromPlaylist(id: list.id, at: [4])
        #expect(try order() == ["Billie Jean@2", "So What@4", "Come Together@3"])

        let error = #expect(throws: StoreError.self) { try store.movePlaylistEntry(id: list.id, from: 1, to: 4) }
        #expect(error.map(String.init(describing:))?.contains("1–3") == true)
        #expect(throws: StoreError.self) { try store.movePlaylistEntry(id: list.id, from: 0, to: 1) }
        #expect(try order() == ["Billie Jean@2", "So What@4", "Come Together@3"])
    }

    @Test func replacingAllTracks() throws {
        let list = try store.createPlaylist(name: "Import", at: at(0))
        try store.addToPlaylist(id: list.id, trackIDs: [come.id, billie.id], now: at(1))
        try store.setPlaylistTracks(id: list.id, trackIDs: [anarchy.id, anarchy.id, soWhat.id], now: at(2))
        let entries = try store.playlistEntries(id: list.id)
        #expect(entries.map(\.track.title) == ["Anarchy in the U.K.", "Anarchy in the U.K.", "So What"])
        #expect(entries.map(\.position) == [1, 2, 3])
        #expect(entries.allSatisfy { $0.addedAt == at(2) })
        #expect(try store.playlist(id: list.id)?.updatedAt == at(2))

        // An unknown track is named, and the playlist stays as it was.
        let error = #expect(throws: StoreError.self) { try store.setPlaylistTracks(id: list.id, trackIDs: [come.id, 9999], now: at(3)) }
        #expect(error.map(String.init(describing:))?.contains("no track has id 9999") == true)
        #expect(try titles(list.id) == ["Anarchy in the U.K.", "Anarchy in the U.K.", "So What"])
        #expect(try store.playlist(id: list.id)?.updatedAt == at(2))
        #expect(message { try store.setPlaylistTracks(id: 9999, trackIDs: [come.id]) } == "no playlist matches '9999'")

        try store.setPlaylistTracks(id: list.id, trackIDs: [], now: at(4))
        #expect(try store.playlist(id: list.id)?.trackCount == 0)
    }

    @Test func aDeletedTrackLeavesItsPlaylists() throws {
        let list = try store.createPlaylist(name: "Mix")
        try store.addToPlaylist(id: list.id, trackIDs: [come.id, billie.id, come.id, soWhat.id])
        _ = try store.deleteTrack(id: come.id)
        let entries = try store.playlistEntries(id: list.id)
        #expect(entries.map(\.track.title) == ["Billie Jean", "So What"])
        #expect(entries.map(\.position) == [1, 2])
        #expect(try store.playlist(id: list.id)?.trackCount == 2)
        try store.movePlaylistEntry(id: list.id, from: 2, to: 1)
        #expect(try titles(list.id) == ["So What", "Billie Jean"])
    }

    // MARK: - Sorting the tracks of a playlist

    /// Manual order So What, Come Together, Billie Jean, Anarchy; added Billie Jean, Anarchy, So What, Come Together.
    func sortedPlaylist() throws -> Int64 {
        let list = try store.createPlaylist(name: "Sorted")
        try store.addToPlaylist(id: list.id, trackIDs: [billie.id], now: at(1))
        try store.addToPlaylist(id: list.id, trackIDs: [anarchy.id], now: at(2))
        try store.addToPlaylist(id: list.id, trackIDs: [soWhat.id], at: 1, now: at(3))
        try store.addToPlaylist(id: list.id, trackIDs: [come.id], at: 2, now: at(4))
        return list.id
    }

    @Test(arguments: [
        (PlaylistTrackSort.manual, ["So What", "Come Together", "Billie Jean", "Anarchy in the U.K."]),
        (.title, ["Anarchy in the U.K.", "Billie Jean", "Come Together", "So What"]),
        // By artist sort key: "beatles" (The Beatles), michael jackson, miles davis, sex pistols.
        (.artist, ["Come Together", "Billie Jean", "So What", "Anarchy in the U.K."]),
        (.album, ["Come Together", "So What", "Anarchy in the U.K.", "Billie Jean"]),
        (.year, ["So What", "Come Together", "Anarchy in the U.K.", "Billie Jean"]),
        (.added, ["Billie Jean", "Anarchy in the U.K.", "So What", "Come Together"]),
    ])
    func playlistTrackSorts(key: PlaylistTrackSort, ascending: [String]) throws {
        let id = try sortedPlaylist()
        #expect(try titles(id, ListSort(key, .ascending)) == ascending)
        #expect(try titles(id, ListSort(key, .descending)) == ascending.reversed())
        // Whatever the order shown, each entry keeps its place in the manual order.
        let manual = ["So What": 1, "Come Together": 2, "Billie Jean": 3, "Anarchy in the U.K.": 4]
        for order in SortDirection.allCases {
            for entry in try store.playlistEntries(id: id, sort: ListSort(key, order)) {
                #expect(entry.position == manual[entry.track.title], "\(key) \(order) \(entry.track.title)")
            }
        }
    }

    @Test func manualIsTheDefaultSort() throws {
        let id = try sortedPlaylist()
        #expect(try store.playlistEntries(id: id).map(\.track.title) == ["So What", "Come Together", "Billie Jean", "Anarchy in the U.K."])
    }

    // MARK: - Play times and list order

    @Test func lastPlayedIsSetOnlyByPlayingFromThePlaylist() throws {
        let list = try store.createPlaylist(name: "Mix", at: at(0))
        try store.addToPlaylist(id: list.id, trackIDs: [come.id, billie.id], now: at(1))
        #expect(try store.playlist(id: list.id)?.lastPlayedAt == nil)
        try store.recordPlay(trackID: come.id, fromPlaylist: list.id, at: at(2))
        #expect(try store.playlist(id: list.id)?.lastPlayedAt == nil)
        try store.renamePlaylist(id: list.id, to: "Mix 2", at: at(3))
        #expect(try store.playlist(id: list.id)?.lastPlayedAt == nil)

        try store.markPlaylistPlayed(id: list.id, at: at(4))
        let played = try #require(try store.playlist(id: list.id))
        #expect(played.lastPlayedAt == at(4))
        // Playing does not count as an update.
        #expect(played.updatedAt == at(3))
        try store.addToPlaylist(id: list.id, trackIDs: [soWhat.id], now: at(5))
        #expect(try store.playlist(id: list.id)?.lastPlayedAt == at(4))
        try store.markPlaylistPlayed(id: list.id, at: at(6))
        #expect(try store.playlist(id: list.id)?.lastPlayedAt == at(6))
    }

    @Test(arguments: [
        (PlaylistSort.title, ["alpha", "Beta", "Gamma"], ["Gamma", "Beta", "alpha"]),
        (.created, ["Beta", "alpha", "Gamma"], ["Gamma", "alpha", "Beta"]),
        (.updated, ["alpha", "Gamma", "Beta"], ["Beta", "Gamma", "alpha"]),
        // Never played comes last in both directions.
        (.lastPlayed, ["Gamma", "alpha", "Beta"], ["alpha", "Gamma", "Beta"]),
    ])
    func playlistSorts(key: PlaylistSort, ascending: [String], descending: [String]) throws {
        let beta = try store.createPlaylist(name: "Beta", at: at(1))
        let alpha = try store.createPlaylist(name: "alpha", at: at(2))
        let gamma = try store.createPlaylist(name: "Gamma", at: at(3))
        try store.addToPlaylist(id: beta.id, trackIDs: [come.id], now: at(10))
        try store.markPlaylistPlayed(id: alpha.id, at: at(20))
        try store.markPlaylistPlayed(id: gamma.id, at: at(15))
        #expect(try store.playlists(sort: ListSort(key, .ascending)).map(\.name) == ascending)
        #expect(try store.playlists(sort: ListSort(key, .descending)).map(\.name) == descending)
    }

    @Test func playlistsSortByTitleByDefault() throws {
        for name in ["b", "C", "a"] { _ = try store.createPlaylist(name: name) }
        #expect(try store.playlists().map(\.name) == ["a", "b", "C"])
    }
}
