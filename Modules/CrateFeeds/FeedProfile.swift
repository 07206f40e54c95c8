public import CrateDomain
public import Foundation

/// What the feeds know of the listener when a feed is composed: likes across sources, the genres they lean
/// to, and the clock. Built once per compose and shared by every signal.
public struct FeedProfile: Sendable {
    /// Liked catalog albums, newest first: seeds for related albums and genre preferences.
    public var catalogFavorites: [Album]
    /// Album artists of liked library albums: seeds for looking their other albums up in a catalog.
    public var favoriteArtists: [String]
    /// Super-genre id → how much the listener leans to it (plays and likes, both sources).
    public var genreAffinity: [String: Double]
    public var now: Date

    public init(catalogFavorites: [Album] = [], favoriteArtists: [String] = [], genreAffinity: [String: Double] = [:],
                now: Date = Date()) {
        self.catalogFavorites = catalogFavorites
        self.favoriteArtists = favoriteArtists
        self.genreAffinity = genreAffinity
        self.now = now
    }

    /// From the library's facts and the liked catalog albums. A like counts as much as five plays.
    public static func make(facts: [AlbumFacts], catalogFavorites: [Album], now: Date = Date()) -> FeedProfile {
        make(snapshot: LocalSnapshot(facts: facts), catalogFavorites: catalogFavorites, now: now)
    }

    /// The same from a snapshot, whose albums' genres are already placed in the taxonomy.
    public static func make(snapshot: LocalSnapshot, catalogFavorites: [Album], now: Date = Date()) -> FeedProfile {
        var affinity: [String: Double] = [:]
        var artists: [String] = []
        for album in snapshot.facts {
            let liked = album.opinion == .favorite
            if liked, !artists.contains(album.artist) { artists.append(album.artist) }
            let weight = Double(album.playCount) + (liked ? 5 : 0)
            guard weight > 0, let places = snapshot.places[album.id] else { continue }
            for place in Set(places.map(\.superGenre.id)) { affinity[place, default: 0] += weight }
        }
        for album in catalogFavorites {
            for place in Set(album.allGenres.flatMap { GenreTaxonomy.classifyAll($0).places.map(\.superGenre.id) }) {
                affinity[place, default: 0] += 5
            }
        }
        return FeedProfile(catalogFavorites: catalogFavorites, favoriteArtists: artists, genreAffinity: affinity, now: now)
    }

    /// Up to `count` different super-genres, drawn with the listener's leanings as weights; any genre when
    /// there are none yet (a new listener still gets a varied wall).
    public func preferredGenres(_ count: Int, rng: inout SplitMix64) -> [SuperGenre] {
        var pool = GenreTaxonomy.superGenres.map { ($0, genreAffinity[$0.id] ?? 0) }
        if !pool.contains(where: { $0.1 > 0 }) { pool = pool.map { ($0.0, 1) } }
        pool = pool.filter { $0.1 > 0 }
        var picked: [SuperGenre] = []
        while picked.count < count, !pool.isEmpty {
            let total = pool.reduce(0) { $0 + $1.1 }
            var ticket = Double.random(in: 0..<total, using: &rng)
            let index = pool.firstIndex { ticket -= $0.1; return ticket < 0 } ?? pool.count - 1
            picked.append(pool.remove(at: index).0)
        }
        return picked
    }
}

extension Album {
    /// The album's genre names, catalog list and tag together.
    public var allGenres: [String] {
        genres + (genre.map { [$0] } ?? [])
    }
}
