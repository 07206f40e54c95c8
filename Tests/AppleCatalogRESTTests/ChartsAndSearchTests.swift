@testable import AppleCatalogREST
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

@Suite(.promptly) struct ChartsAndSearchTests {
    @Test func chartsReadTheMostPlayedChartAndFollowNextWithoutLimit() async throws {
        try await withCatalog { server, client, _ in
            // Genre 21's `next` links drop `limit` (2017 shape): the client puts back what it still needs.
            let page = try await client.chartAlbums(genreID: "21", offset: 0, limit: 70)
            #expect(page.items.count == 70)
            #expect(page.items.first?.title == "Chart 21 #1")
            #expect(page.items.last?.title == "Chart 21 #70")
            #expect(!page.items.contains { $0.title == "Decoy" })   // the other chart object is not read
            #expect(page.nextOffset == 70)
            let requests = await server.log.requests(to: "/v1/catalog/us/charts")
            #expect(requests.count == 2)
            #expect(requests.map { $0.query["limit"] } == ["50", "20"])
            #expect(requests.map { $0.query["offset"] } == [nil, "50"])
            #expect(requests.allSatisfy { $0.query["chart"] == "most-played" && $0.query["types"] == "albums" && $0.query["genre"] == "21" })
            #expect(requests.allSatisfy { $0.jwtProblem == nil && $0.userToken == nil })

            // The next page, from the offset the page gave.
            let second = try await client.chartAlbums(genreID: "21", offset: try #require(page.nextOffset), limit: 60)
            #expect(second.items.count == 50)
            #expect(second.items.first?.title == "Chart 21 #71")
            #expect(second.next == nil)
            let first = try #require(second.items.first)
            #expect(first.id == 800_021_071 && first.identity == "applemusic:800021071")
            #expect(first.externalID == "800021071" && first.source == "applemusic")
        }
    }

    @Test func chartsFollowNextThatKeepsLimitAndMapAlbums() async throws {
        try await withCatalog { server, client, _ in
            let page = try await client.chartAlbums(genreID: "20", offset: 10, limit: 55)
            #expect(page.items.count == 55)
            #expect(page.items.first?.title == "Chart 20 #11")
            #expect(page.nextOffset == 65)
            let requests = await server.log.requests(to: "/v1/catalog/us/charts")
            #expect(requests.map { $0.query["limit"] } == ["50", "5"])
            #expect(requests.map { $0.query["offset"] } == ["10", "60"])

            let album = try #require(page.items.first)
            #expect(album.artist == "The Invented Quartet")
            #expect(album.genre == "Jazz")
            #expect(album.genres == ["Jazz"])
            #expect(album.year == 1959 && album.date == "1959-08-17")
            #expect(album.artworkURL == CatalogFixtures.artworkTemplate.replacingOccurrences(of: "{w}x{h}", with: "600x600"))
            #expect(album.duration == 0)   // charts carry no tracks
            #expect(album.addedAt == Date(timeIntervalSince1970: 0))
        }
    }

    @Test func emptyChartAndOverallChart() async throws {
        try await withCatalog { server, client, _ in
            let empty = try await client.chartAlbums(genreID: "999", offset: 0, limit: 20)
            #expect(empty.items.isEmpty && empty.next == nil)
            let overall = try await client.chartAlbums(genreID: nil, offset: 0, limit: 3)
            #expect(overall.items.map(\.title) == ["Chart all #1", "Chart all #2", "Chart all #3"])
            let last = await server.log.requests(to: "/v1/catalog/us/charts").last
            #expect(last?.query["genre"] == nil)
        }
    }

    @Test func searchNestsOneObjectPerTypeAndMissingTypesAreLeftOut() async throws {
        try await withCatalog { server, client, _ in
            let groups = try await client.search(term: "blue note", limit: 5)
            #expect(groups.map(\.group) == [.artists, .albums, .tracks])
            let albums = try #require(groups.first { $0.group == .albums })
            #expect(albums.catalog?.count == 5 && albums.total == 5 && albums.count == 5)
            #expect(albums.catalog?.first == CatalogHit(source: "applemusic", id: "600000001", title: "Blue Note Album 1",
                                                        subtitle: "Blue Note Band",
                                                        artworkURL: CatalogFixtures.artworkTemplate.replacingOccurrences(of: "{w}x{h}", with: "600x600")))
            let tracks = try #require(groups.first { $0.group == .tracks })
            #expect(tracks.catalog?.first?.subtitle == "Blue Note Band — Blue Note Album 1")
            #expect(groups.first { $0.group == .artists }?.catalog?.count == 3)
            let seen = try #require(await server.log.requests(to: "/v1/catalog/us/search").first)
            #expect(seen.query["term"] == "blue note")
            #expect(seen.rawQuery.contains("term=blue+note"))
            #expect(seen.query["types"] == "albums,artists,songs")

            // Apple leaves a type without hits out of `results`.
            let noSongs = try await client.search(term: "nosongs jazz", limit: 25)
            #expect(noSongs.map(\.group) == [.artists, .albums])
            #expect(noSongs.first { $0.group == .albums }?.count == 25)
            #expect(try await client.search(term: "nothing here", limit: 5).isEmpty)
            // A limit over the maximum is capped, not sent (Apple answers 400 above 25).
            _ = try await client.search(term: "cap", limit: 100)
            #expect(await server.log.requests(to: "/v1/catalog/us/search").last?.query["limit"] == "25")
        }
    }

    @Test func searchAlbumsPagesByTwentyFiveAndSongsBecomeTracks() async throws {
        try await withCatalog { server, client, _ in
            let page = try await client.searchAlbums(term: "miles", offset: 0, limit: 30)
            #expect(page.items.count == 30)
            #expect(page.items.last?.title == "Miles Album 30")
            #expect(page.nextOffset == 30)
            let requests = await server.log.requests(to: "/v1/catalog/us/search")
            #expect(requests.map { $0.query["limit"] } == ["25", "5"])
            #expect(requests.map { $0.query["offset"] } == [nil, "25"])
            #expect(requests.allSatisfy { $0.query["types"] == "albums" && $0.query["term"] == "miles" })

            let rest = try await client.searchAlbums(term: "miles", offset: 30, limit: 25)
            #expect(rest.items.count == 10 && rest.next == nil)
            #expect(try await client.searchAlbums(term: "nothing here", offset: 0, limit: 10).items.isEmpty)

            let songs = try await client.searchSongs(term: "so what", limit: 27)
            #expect(songs.count == 27)
            let song = try #require(songs.first)
            #expect(song.ref == TrackRef(source: "applemusic", id: "610000001"))
            #expect(song.albumID == 600_000_001)   // from the song's url
            #expect(song.album == "So What Album 1" && song.artist == "So What Band")
            #expect(song.duration == 240)
            #expect(!song.playableInFull && song.path == nil)
            #expect(song.previewURL?.hasSuffix("mzaf_610000001.plus.aac.p.m4a") == true)
        }
    }

    @Test func genresFollowNext() async throws {
        try await withCatalog { server, client, _ in
            let genres = try await client.genres()
            #expect(genres.count == 7)
            #expect(genres.first == CatalogGenre(id: "34", name: "Music", parentID: nil))
            #expect(genres.contains(CatalogGenre(id: "1153", name: "Metal", parentID: "21")))
            #expect(await server.log.requests(to: "/v1/catalog/us/genres").count == 2)
        }
    }
}
