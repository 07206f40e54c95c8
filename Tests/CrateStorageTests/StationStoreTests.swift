import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Saved stations in a real library database: first-class as tracks, invisible as an album.
@Suite struct StationStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws {
        fx = try StoreFixture("crate-stations")
        try fx.save("/m/kind", [TrackTags(title: "So What", artist: "Miles Davis", albumArtist: "Miles Davis", album: "Kind of Blue", trackNumber: 1)])
    }

    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func stationsAreSavedResolvedAndRemoved() throws {
        let fip = try store.addStation(name: "FIP Jazz", url: try url("https://icecast.example/fip-jazz.mp3"), artworkURL: nil)
        let nts = try store.addStation(name: "NTS 1", url: try url("http://stream.example/nts1"), artworkURL: "http://img.example/nts.png")
        #expect(try store.stations().map(\.name) == ["FIP Jazz", "NTS 1"])
        #expect(try store.resolveStation("fip jazz") == fip)
        #expect(try store.resolveStation("\(nts.id)") == nts)
        #expect(try store.resolveStation("nts") == nts)
        #expect(throws: StationError.exists("fip jazz")) { try store.addStation(name: "fip jazz", url: try url("http://x.example/a"), artworkURL: nil) }
        #expect(throws: StationError.notFound("kiss")) { try store.resolveStation("kiss") }
        // The backing track carries the URL as its ref, the name as its title.
        let track = try #require(try store.track(id: fip.trackID))
        #expect(track.ref == TrackRef(source: "https", id: "https://icecast.example/fip-jazz.mp3") && track.title == "FIP Jazz")
        try store.removeStation(id: fip.id)
        #expect(try store.stations() == [nts])
        #expect(try store.track(id: fip.trackID) == nil)
    }

    @Test func streamsStayOutOfAlbumsArtistsTracksAndCounts() throws {
        _ = try store.addStation(name: "Radio Paradise", url: try url("http://stream.example/rp"), artworkURL: nil)
        _ = try store.streamTrack(url: try url("http://stream.example/adhoc.mp3"), title: "http://stream.example/adhoc.mp3")
        #expect(try store.albums().map(\.title) == ["Kind of Blue"])
        #expect(try store.albumArtists().map(\.name) == ["Miles Davis"])
        #expect(try store.tracks(sort: ListSort(.title)).map(\.title) == ["So What"])
        #expect(try store.albumFacts().count == 1)
        let counts = try store.counts()
        #expect(counts.albums == 1 && counts.tracks == 1 && counts.artists == 1, "\(counts)")
    }

    @Test func searchFindsStationsInTheirOwnGroupOnly() throws {
        _ = try store.addStation(name: "Sørlandet Jazz Radio", url: try url("http://stream.example/sj"), artworkURL: nil)
        let found = try store.search(try SearchQuery.parse("jazz radio"), text: "jazz radio")
        #expect(found.group(.stations)?.stations?.map(\.name) == ["Sørlandet Jazz Radio"])
        #expect(found.group(.tracks) == nil && found.group(.albums) == nil, "\(found.groups.map(\.group))")
        #expect(try store.search(try SearchQuery.parse("JAZZ"), text: "JAZZ").group(.stations)?.total == 1)
        // The music is still found as music.
        #expect(try store.search(try SearchQuery.parse("so what"), text: "so what").group(.stations) == nil)
    }

    @Test func aStationCanBeAFavoriteAndItsTrackIsReused() throws {
        let station = try store.addStation(name: "KEXP", url: try url("https://kexp.example/live"), artworkURL: nil)
        try store.setOpinion(.track, id: station.trackID, .favorite)
        #expect(try store.station(id: station.id)?.favorite == true)
        #expect(try store.favoriteTracks().map(\.title) == ["KEXP"])
        // Playing the same URL ad hoc reuses the station's track.
        #expect(try store.streamTrack(url: try url("https://kexp.example/live"), title: "KEXP") == station.trackID)
    }

    /// A played station is in history and among the recent items (as a station, not as the hidden album); stream
    /// plays do not make "Internet radio" a top artist; a removed station leaves the recents.
    @Test func aPlayedStationIsInHistoryAndHome() throws {
        let station = try store.addStation(name: "Radio Swiss Jazz", url: try url("http://stream.example/rsj"), artworkURL: nil)
        let adHoc = try store.streamTrack(url: try url("http://stream.example/once"), title: "http://stream.example/once")
        try store.recordPlay(trackID: station.trackID, at: Date(timeIntervalSince1970: 1_000))
        try store.recordPlay(trackID: adHoc, at: Date(timeIntervalSince1970: 2_000))
        let home = try store.home(now: Date(timeIntervalSince1970: 3_000))
        #expect(home.recentItems.map(\.kind) == [.station] && home.recentItems.first?.station?.name == "Radio Swiss Jazz")
        #expect(home.recentPlays.map(\.track.id) == [adHoc, station.trackID])
        #expect(home.topArtists.isEmpty)
        try store.removeStation(id: station.id)
        #expect(try store.home(now: Date(timeIntervalSince1970: 3_000)).recentItems.isEmpty)
    }
}
