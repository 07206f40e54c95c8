import CrateDomain
import CrateFeeds
import Foundation
import Testing

/// Catalog signals: which calls each makes, genre filtering, new releases by date, and partial failure.
struct CatalogSignalTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)   // 2026-09-21

    func run(_ id: SignalID, _ catalog: ListCatalog, genre: GenreSelection? = nil, profile: FeedProfile? = nil,
             excluded: Set<String> = [], limit: Int = 10) async throws -> [Album] {
        try await CatalogSignal(id, catalog: catalog, profile: profile ?? FeedProfile(now: now))
            .candidates(limit: limit, context: FeedContext(seed: 3, excluded: excluded, genre: genre))
    }

    @Test func historyBlendsRecentHeavyRotationAndLibraryWithoutRepeats() async throws {
        let catalog = ListCatalog(recent: [catalogAlbum("a"), catalogAlbum("b")], heavy: [catalogAlbum("b"), catalogAlbum("c")],
                                  library: [catalogAlbum("d")])
        let found = try await run(.listeningHistory, catalog)
        #expect(Set(found.compactMap(\.externalID)) == ["a", "b", "c", "d"] && found.count == 4)
        #expect(Set(await catalog.log.calls) == ["recent", "heavy", "library"])
    }

    @Test func oneFailingCallCostsOnlyItsAlbums() async throws {
        let catalog = ListCatalog(recent: [catalogAlbum("a")], heavy: [catalogAlbum("b")], library: [catalogAlbum("c")],
                                  failing: ["heavy"])
        #expect(Set(try await run(.listeningHistory, catalog).compactMap(\.externalID)) == ["a", "c"])
    }

    @Test func everyCallFailingFailsTheSignalWithTheReason() async throws {
        let catalog = ListCatalog(failing: ["recent", "heavy", "library"])
        await #expect(throws: FakeError.self) { try await run(.listeningHistory, catalog) }
    }

    @Test func personalGenreSignalsKeepOnlyTheGenre() async throws {
        let rock = try #require(GenreSelection(superGenre: "Rock"))
        let catalog = ListCatalog(recent: [catalogAlbum("r", genres: ["Alternative", "Music"]), catalogAlbum("j", genres: ["Jazz"])],
                                  recommended: [catalogAlbum("i", genres: ["Indie Rock"]), catalogAlbum("p", genres: ["Pop"])])
        #expect(try await run(.personalHistory, catalog, genre: rock).compactMap(\.externalID) == ["r"])
        #expect(try await run(.genreRecommendations, catalog, genre: rock).compactMap(\.externalID) == ["i"])
    }

    @Test func newReleasesAreRecentChartAlbumsNewestFirst() async throws {
        let chart = [catalogAlbum("old", date: "2019-05-01"), catalogAlbum("new", date: "2026-09-01"),
                     catalogAlbum("newer", date: "2026-09-15"), catalogAlbum("future", date: "2027-01-01"),
                     catalogAlbum("year", date: "2026")]
        var charts: [String: [Album]] = ["": chart]
        for genre in GenreTaxonomy.superGenres { charts[genre.chartGenreIDs.first ?? ""] = [] }
        let found = try await run(.newReleases, ListCatalog(charts: charts))
        // "2026" counts as 2026-01-01, more than 180 days before now; a prerelease far ahead is left out.
        #expect(found.compactMap(\.externalID) == ["newer", "new"])
    }

    @Test func seedExpansionFollowsLikedAlbumsAndTheirArtists() async throws {
        let rock = try #require(GenreSelection(superGenre: "Rock"))
        let liked = catalogAlbum("seed", genres: ["Rock"], artist: "The Seeds")
        let catalog = ListCatalog(search: ["The Seeds": [catalogAlbum("s2", artist: "The Seeds"), catalogAlbum("x", artist: "Other")],
                                           "Local Hero": [catalogAlbum("l1", artist: "Local Hero")]],
                                  related: ["seed": [catalogAlbum("rel1"), catalogAlbum("rel2")]])
        let profile = FeedProfile(catalogFavorites: [liked], favoriteArtists: ["Local Hero"], now: now)
        let found = Set(try await run(.seedExpansion, catalog, genre: rock, profile: profile).compactMap(\.externalID))
        #expect(found == ["rel1", "rel2", "s2", "l1"])      // "x" is another artist's album found by the name search
    }

    @Test func excludedAndRepeatedAlbumsAreLeftOut() async throws {
        let catalog = ListCatalog(recommended: [catalogAlbum("a"), catalogAlbum("b"), catalogAlbum("a"), catalogAlbum("c")])
        #expect(try await run(.recommendations, catalog, excluded: ["b"]).compactMap(\.externalID) == ["a", "c"])
    }

    @Test func laterRoundsOfChartsGoDeeper() async throws {
        let catalog = ListCatalog(charts: [:])
        _ = try await CatalogSignal(.popularCharts, catalog: catalog, profile: FeedProfile(now: now))
            .candidates(limit: 20, context: FeedContext(seed: 1, round: 2))
        // The overall chart, two pages of 20 further down than the first fetch.
        #expect(await catalog.log.calls.contains("charts:@40"))
    }
}
