public import CrateDomain
import Foundation

/// The library as local signals read it: every album's facts (cheap), then the chosen albums in full.
public protocol LocalAlbumLibrary: Sendable {
    func albumFacts() async throws -> [AlbumFacts]
    func albums(ids: [Int64]) async throws -> [Album]
}

/// One read of the library's facts with what every local signal derives from them, taken once per compose.
public struct LocalSnapshot: Sendable {
    public let facts: [AlbumFacts]
    /// Each album's places in the taxonomy, by album id (albums without a mapped genre are absent).
    public let places: [Int64: [GenrePlace]]

    public init(facts: [AlbumFacts]) {
        self.facts = facts
        var places: [Int64: [GenrePlace]] = [:]
        var cache: [String: [GenrePlace]] = [:]
        for album in facts {
            guard let genre = album.genre else { continue }
            let found = cache[genre] ?? GenreTaxonomy.classifyAll(genre).places
            cache[genre] = found
            if !found.isEmpty { places[album.id] = found }
        }
        self.places = places
    }

    /// Albums a feed may offer: not disliked, not excluded, and in the genre when there is one.
    public func eligible(_ context: FeedContext) -> [AlbumFacts] {
        facts.filter { album in
            album.opinion != .dislike && !context.excluded.contains(album.identity)
                && (context.genre.map { inGenre(album, $0) } ?? true)
        }
    }

    public func inGenre(_ album: AlbumFacts, _ selection: GenreSelection) -> Bool {
        places[album.id]?.contains { $0.belongs(to: selection) } ?? false
    }

    /// Genre parts that map to no super-genre, with how many albums carry each, most common first.
    public func unmappedGenres() -> [(tag: String, albums: Int)] {
        var counts: [String: Int] = [:]
        for album in facts {
            guard let genre = album.genre else { continue }
            for part in GenreTaxonomy.classifyAll(genre).unmapped { counts[part, default: 0] += 1 }
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
