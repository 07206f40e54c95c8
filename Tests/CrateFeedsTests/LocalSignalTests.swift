import CrateDomain
import CrateFeeds
import Foundation
import Testing

/// Local signals choose from the library's facts: each on its theme, never a dislike or an excluded album,
/// genre feeds only inside the genre (tags mapped through the taxonomy).
struct LocalSignalTests {
    let library = ArrayLibrary(all: [
        facts(1, artist: 1, genre: "Indie Rock", year: 2005, added: 100, plays: 9, lastPlayed: 500, opinion: .favorite),
        facts(2, artist: 1, genre: "Indie Rock", year: 2007, added: 200),
        facts(3, artist: 2, genre: "Indie Rock; Shoegaze", year: 2006, added: 300, plays: 2, lastPlayed: 900),
        facts(4, artist: 3, genre: "Jazz", year: 1959, added: 400, plays: 30),
        facts(5, artist: 4, genre: "Hip Hop", year: 1994, added: 500, opinion: .dislike),
        facts(6, artist: 5, genre: "Polka", year: 2020, added: 600),
        facts(7, artist: 6, genre: "Punk", year: 1977, added: 700),
    ])

    func ids(_ id: SignalID, limit: Int = 10, genre: GenreSelection? = nil, excluded: Set<String> = [], seed: UInt64 = 1)
        async throws -> [Int64] {
        try await library.signal(id).candidates(limit: limit, context: FeedContext(seed: seed, excluded: excluded, genre: genre))
            .map(\.id)
    }

    @Test func historyIsWhatWasPlayed() async throws {
        #expect(Set(try await ids(.listeningHistory)) == [1, 3, 4])
    }

    @Test func wildCardIsNeverPlayedAndNeverDisliked() async throws {
        #expect(Set(try await ids(.wildCard)) == [2, 6, 7])
    }

    @Test func chartsAreTheMostPlayedFirstPool() async throws {
        #expect(Set(try await ids(.popularCharts)) == [1, 3, 4])
    }

    @Test func newReleasesAreTheRecentlyAddedNewestFirst() async throws {
        #expect(try await ids(.newReleases, limit: 3) == [7, 6, 4])
    }

    @Test func recommendationsAreNearTheLikedAlbums() async throws {
        // Liked: artist 1, Indie Rock, 2005. Album 2 (same artist, genre, era, unplayed) ranks first; album 3
        // shares the subcategory and the era; Jazz, Polka and the disliked Hip Hop album are not related.
        let found = try await ids(.recommendations)
        #expect(found.first == 2)
        #expect(Set(found) == [2, 3, 7])
    }

    @Test func noLikesNoRecommendations() async throws {
        let unliked = ArrayLibrary(all: library.all.map { var f = $0; f.opinion = nil; return f })
        #expect(try await unliked.signal(.recommendations).candidates(limit: 5, context: FeedContext(seed: 1)).isEmpty)
    }

    @Test func excludedAlbumsAreNeverOffered() async throws {
        for id in SignalID.wall {
            #expect(!(try await ids(id, excluded: ["local-2", "local-3"])).contains { $0 == 2 || $0 == 3 })
        }
    }

    @Test func genreFeedsStayInTheGenre() async throws {
        let rock = try #require(GenreSelection(superGenre: "Rock"))
        for id in SignalID.genre {
            let found = Set(try await ids(id, genre: rock))
            #expect(found.isSubset(of: [1, 2, 3, 7]), "\(id): \(found)")
        }
        #expect(Set(try await ids(.trending, genre: rock)) == [1, 2, 3, 7])
        // Seed expansion: the liked Indie Rock album's artist first, then its subcategory.
        #expect(try await ids(.seedExpansion, genre: rock) == [2, 3])
        let punk = try #require(GenreSelection(superGenre: "Rock", subcategories: ["Punk"]))
        #expect(try await ids(.trending, genre: punk) == [7])
    }

    @Test func subcategoryRotationPicksSubcategoriesThatHaveAlbums() async throws {
        let rock = try #require(GenreSelection(superGenre: "Rock"))
        var seen: Set<Int64> = []
        for seed in 0..<20 as Range<UInt64> { seen.formUnion(try await ids(.subcategoryRotation, genre: rock, seed: seed)) }
        #expect(seen == [1, 2, 3, 7])      // Indie Rock's albums and Punk's; never Jazz, Polka or a dislike
    }

    @Test func sameSeedSamePicks() async throws {
        for id in SignalID.wall {
            #expect(try await ids(id, seed: 42) == (try await ids(id, seed: 42)))
        }
    }

    @Test func unmappedTagsAreCountedForTheDiagnostics() {
        let unmapped = LocalSnapshot(facts: library.all).unmappedGenres()
        #expect(unmapped.map(\.tag).contains("Polka"))
        #expect(!unmapped.map(\.tag).contains("Indie Rock"))
    }

    @Test func theProfileLeansToWhatIsPlayedAndLiked() {
        let profile = FeedProfile.make(facts: library.all, catalogFavorites: [catalogAlbum("c1", genres: ["Jazz"])])
        #expect((profile.genreAffinity["jazz"] ?? 0) == 35)      // 30 plays + a liked catalog album
        #expect((profile.genreAffinity["rock"] ?? 0) == 16)      // 9 plays + like, 2 plays
        #expect(profile.favoriteArtists == ["Artist 1"])
        var rng = SplitMix64(seed: 7)
        let picked = profile.preferredGenres(2, rng: &rng).map(\.id)
        #expect(Set(picked) == ["jazz", "rock"])
    }
}
