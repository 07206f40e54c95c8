public import CrateDomain
import Foundation

/// What a signal needs to know besides how many albums to return: the injected randomness, the albums it
/// should not offer, and for genre feeds the genre.
public struct FeedContext: Sendable, Hashable {
    /// Seeds all randomness of one fetch; the composer gives each round a fresh one derived from it.
    public var seed: UInt64
    /// Album keys (`FeedKey.of`) never to show: dislikes the caller knows of, albums already on screen.
    public var excluded: Set<String>
    /// The genre (and optional subcategories) for genre feeds; nil for the wall.
    public var genre: GenreSelection?
    /// 0 for the first fetch of a feed, then 1, 2, … for each `fetchMore` (signals may page with it).
    public var round: Int

    public init(seed: UInt64, excluded: Set<String> = [], genre: GenreSelection? = nil, round: Int = 0) {
        self.seed = seed
        self.excluded = excluded
        self.genre = genre
        self.round = round
    }

    /// The generator for one signal implementation. Derived per signal so results do not depend on which
    /// parallel fetch happens to run first.
    public func rng(for id: SignalID, source: String) -> SplitMix64 {
        SplitMix64.derived(from: seed, label: "\(id.rawValue)/\(source)/\(round)")
    }
}

/// The key that makes two albums the same across signals and sources: the catalog id, else the identity.
public enum FeedKey {
    public static func of(_ album: Album) -> String {
        GenreMerge.key(album)
    }
}
