import CrateDomain
import CrateStorage
import Foundation
import Testing

/// Plays, recent items and top artists in a real library database; every time is given explicitly.
@Suite struct HomeStoreTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }
    /// 2026-03-01 12:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_772_366_400)

    init() throws {
        fx = try StoreFixture("crate-home")
    }

    func daysAgo(_ days: Double) -> Date { Self.now.addingTimeInterval(-days * StoreFixture.day) }
    func hoursAgo(_ hours: Int) -> Date { Self.now.addingTimeInterval(-Double(hours) * 3600) }
    func minute(_ n: Int) -> Date { Self.now.addingTimeInterval(-100_000 + Double(n) * 60) }

    /// `count` one-track albums "Album 1"… by "Artist 1"…, in one folder each.
    func saveAlbums(_ count: Int) throws -> [Track] {
        try (1...count).map { n in
            try fx.saveAlbum("/m/\(n)", title: "Song \(n)", artist: "Artist \(n)", album: "Album \(n)")
        }
    }

    func describe(_ items: [RecentItem]) -> [String] {
        items.map { item in
            switch item.kind {
            case .album: "album:\(item.album?.title ?? "?")"
            case .playlist: "playlist:\(item.playlist?.name ?? "?")"
            case .station: "station:\(item.station?.name ?? "?")"
            }
        }
    }

    @Test func recentItemsMixAlbumsAndPlaylistsNewestFirstAndKeepFifty() throws {
        let tracks = try saveAlbums(40)
        var expected: [String] = []
        // 40 albums and 15 playlists played in turn, one a minute: 55 in all.
        var playlistCount = 0
        for (i, track) in tracks.enumerated() {
            try store.markAlbumPlayed(id: track.albumID, at: minute(expected.count))
            expected.append("album:Album \(i + 1)")
            if i % 3 == 0, playlistCount < 15 {
                playlistCount += 1
                let list = try store.createPlaylist(name: "List \(playlistCount)")
                try store.markPlaylistPlayed(id: list.id, at: minute(expected.count))
                expected.append("playlist:List \(playlistCount)")
            }
        }
        #expect(expected.count == 54)
        // One more playlist to go over the cap.
        let last = try store.createPlaylist(name: "Last List")
        try store.markPlaylistPlayed(id: last.id, at: minute(expected.count))
        expected.append("playlist:Last List")

        let items = try store.recentItems()
        #expect(items.count == Home.recentItemLimit)
        #expect(describe(items) == Array(expected.reversed().prefix(50)))
        #expect(items.map(\.playedAt) == items.map(\.playedAt).sorted(by: >))
        #expect(items.first?.playedAt == minute(54))
        #expect(try store.recentItems(limit: 3).count == 3)
    }

    @Test func playingAnItemAgainMovesItFirst() throws {
        let tracks = try saveAlbums(3)
        let list = try store.createPlaylist(name: "Mix")
        try store.markAlbumPlayed(id: tracks[0].albumID, at: minute(1))
        try store.markPlaylistPlayed(id: list.id, at: minute(2))
        try store.markAlbumPlayed(id: tracks[1].albumID, at: minute(3))
        #expect(describe(try store.recentItems()) == ["album:Album 2", "playlist:Mix", "album:Album 1"])
        try store.recordPlay(trackID: tracks[0].id, at: minute(4))
        #expect(describe(try store.recentItems()) == ["album:Album 1", "album:Album 2", "playlist:Mix"])
        // A play from a playlist makes the playlist recent, not the album.
        try store.recordPlay(trackID: tracks[2].id, fromPlaylist: list.id, at: minute(5))
        let items = try store.recentItems()
        #expect(describe(items) == ["playlist:Mix", "album:Album 1", "album:Album 2"])
        #expect(items.first?.playedAt == minute(5))
    }

    @Test func recentItemsLeaveOutDislikedAndDeletedItems() throws {
        let tracks = try saveAlbums(3)
        let list = try store.createPlaylist(name: "Mix")
        for (i, track) in tracks.enumerated() { try store.markAlbumPlayed(id: track.albumID, at: minute(i)) }
        try store.markPlaylistPlayed(id: list.id, at: minute(10))
        try store.setOpinion(.album, id: tracks[1].albumID, .dislike)
        #expect(describe(try store.recentItems()) == ["playlist:Mix", "album:Album 3", "album:Album 1"])
        _ = try store.deleteTrack(id: tracks[2].id)
        try store.deletePlaylist(id: list.id)
        #expect(describe(try store.recentItems()) == ["album:Album 1"])
    }

    @Test func recordPlayCountsOnTrackAndAlbum() throws {
        let tracks = try fx.save("/m/a", [TrackTags(title: "One", artist: "Band", album: "Record", trackNumber: 1),
                                          TrackTags(title: "Two", artist: "Band", album: "Record", trackNumber: 2)])
        let one = try #require(tracks.first), two = try #require(tracks.last)
        #expect(one.playCount == 0 && one.lastPlayedAt == nil)
        #expect(try fx.album("Record").playCount == 0)

        try store.recordPlay(trackID: one.id, at: minute(1))
        try store.recordPlay(trackID: one.id, at: minute(2))
        try store.recordPlay(trackID: two.id, at: minute(3))

        let playedOne = try #require(try store.track(id: one.id))
        #expect(playedOne.playCount == 2 && playedOne.lastPlayedAt == minute(2))
        let playedTwo = try #require(try store.track(id: two.id))
        #expect(playedTwo.playCount == 1 && playedTwo.lastPlayedAt == minute(3))
        let album = try fx.album("Record")
        #expect(album.playCount == 3 && album.lastPlayedAt == minute(3))
        #expect(try store.history().map(\.track.title) == ["Two", "One", "One"])
        #expect(try store.history().map(\.playedAt) == [minute(3), minute(2), minute(1)])
        // Plays from a playlist count the same.
        let list = try store.createPlaylist(name: "Mix")
        try store.recordPlay(trackID: two.id, fromPlaylist: list.id, at: minute(4))
        #expect(try store.track(id: two.id)?.playCount == 2)
        #expect(try fx.album("Record").playCount == 4)
    }

    @Test func recordingAPlayOfAnUnknownTrackFails() throws {
        #expect(throws: StoreError.self) { try store.recordPlay(trackID: 9999, at: minute(1)) }
        #expect(try store.history().isEmpty)
    }

    @Test func topArtistsCountPlaysOfTheLastThirtyDays() throws {
        let tracks = try saveAlbums(13)
        // Artist n (1…12) is played n times within the window, once a day, the last one n hours ago.
        for n in 1...12 {
            for k in 0..<n {
                try store.recordPlay(trackID: tracks[n - 1].id, at: hoursAgo(24 * k + n))
            }
        }
        // Artist 13 was played most of all, but more than 30 days ago.
        for k in 0..<50 { try store.recordPlay(trackID: tracks[12].id, at: daysAgo(31 + Double(k) / 10)) }

        let (top, basis) = try store.topArtists(now: Self.now)
        #expect(basis == "top")
        #expect(top.count == Home.topArtistLimit)
        #expect(top.map(\.artist.name) == (3...12).reversed().map { "Artist \($0)" })
        #expect(top.map(\.plays) == Array((3...12).reversed()))
        #expect(top.first?.lastPlayedAt == hoursAgo(12))
        #expect(!top.contains { $0.artist.name == "Artist 13" })

        // A shorter window and a smaller limit: artists 7…12 all have 7 plays in the last week, and the
        // most recently played of them come first.
        let (week, _) = try store.topArtists(days: 7, limit: 3, now: Self.now)
        #expect(week.map(\.artist.name) == ["Artist 7", "Artist 8", "Artist 9"])
        #expect(week.map(\.plays) == [7, 7, 7])
    }

    @Test func equalPlayCountsRankTheMostRecentFirst() throws {
        let tracks = try saveAlbums(3)
        try store.recordPlay(trackID: tracks[0].id, at: daysAgo(3))
        try store.recordPlay(trackID: tracks[1].id, at: daysAgo(1))
        try store.recordPlay(trackID: tracks[2].id, at: daysAgo(2))
        let (top, basis) = try store.topArtists(now: Self.now)
        #expect(basis == "top")
        #expect(top.map(\.artist.name) == ["Artist 2", "Artist 3", "Artist 1"])
    }

    @Test func withoutPlaysInTheWindowTopArtistsFallBackToRecentOnes() throws {
        let tracks = try saveAlbums(3)
        try store.recordPlay(trackID: tracks[0].id, at: daysAgo(40))
        try store.recordPlay(trackID: tracks[0].id, at: daysAgo(39))
        try store.recordPlay(trackID: tracks[1].id, at: daysAgo(35))
        try store.recordPlay(trackID: tracks[2].id, at: daysAgo(60))
        let (top, basis) = try store.topArtists(now: Self.now)
        #expect(basis == "recent")
        #expect(top.map(\.artist.name) == ["Artist 2", "Artist 1", "Artist 3"])
        #expect(top.allSatisfy { $0.plays == 0 })
        #expect(top.map(\.lastPlayedAt) == [daysAgo(35), daysAgo(39), daysAgo(60)])
        // The same plays are "top" when now is earlier.
        #expect(try store.topArtists(now: daysAgo(30)).basis == "top")
    }

    @Test func anEmptyLibraryHasAnEmptyHome() throws {
        let home = try store.home(now: Self.now)
        #expect(home.recentItems.isEmpty && home.recentPlays.isEmpty && home.topArtists.isEmpty)
        #expect(home.topArtistsBasis == "recent")
    }

    @Test func homeGathersRecentsPlaysAndTopArtists() throws {
        let tracks = try saveAlbums(2)
        for i in 0..<25 { try store.recordPlay(trackID: tracks[i % 2].id, at: hoursAgo(25 - i)) }
        let home = try store.home(now: Self.now)
        #expect(home.topArtistsBasis == "top")
        #expect(home.topArtists.map(\.artist.name) == ["Artist 1", "Artist 2"])
        #expect(home.topArtists.map(\.plays) == [13, 12])
        #expect(home.recentPlays.count == 20)
        #expect(home.recentPlays.first?.playedAt == hoursAgo(1))
        #expect(describe(home.recentItems) == ["album:Album 1", "album:Album 2"])
    }
}
