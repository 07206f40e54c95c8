import CrateDomain
import Foundation

/// How each signal chooses from the library: pure functions of the facts, the context and its generator,
/// returning album ids best first. Every pick draws from a pool a few times the size asked for and shuffles
/// it, so a regenerated wall differs while staying on the signal's theme.
enum LocalPicks {
    static func pick(_ id: SignalID, _ snapshot: LocalSnapshot, limit: Int, context: FeedContext,
                     rng: inout SplitMix64) -> [Int64] {
        let eligible = snapshot.eligible(context)
        let poolSize = max(limit * 3, 24)
        switch id {
        case .listeningHistory, .personalHistory:
            return history(eligible, limit: limit, poolSize: poolSize, rng: &rng)
        case .recommendations, .genreRecommendations:
            return related(eligible, snapshot, limit: limit, rng: &rng)
        case .popularCharts:
            let played = eligible.filter { $0.playCount > 0 }.sorted { $0.playCount > $1.playCount }
            return shuffledPrefix(played.prefix(poolSize).map(\.id), limit, &rng)
        case .trending:
            // The genre's most played, from a random depth: charts at a random offset, locally.
            let ranked = eligible.sorted { ($0.playCount, $0.addedAt) > ($1.playCount, $1.addedAt) }
            let start = ranked.count > limit ? Int.random(in: 0...min(ranked.count - limit, limit * 2), using: &rng) : 0
            return ranked.dropFirst(start).prefix(limit).map(\.id)
        case .newReleases, .genreNewReleases:
            let recent = eligible.sorted { ($0.addedAt, $0.year ?? 0, $0.id) > ($1.addedAt, $1.year ?? 0, $1.id) }
            return recent.prefix(limit).map(\.id)
        case .wildCard:
            let unplayed = eligible.filter { $0.playCount == 0 && $0.lastPlayedAt == nil }
            return shuffledPrefix((unplayed.isEmpty ? eligible : unplayed).map(\.id), limit, &rng)
        case .subcategoryRotation:
            return rotation(eligible, snapshot, limit: limit, context: context, rng: &rng)
        case .seedExpansion:
            return seeds(eligible, snapshot, limit: limit, context: context, rng: &rng)
        }
    }

    /// Recently played first, then most played: a shuffled pool of both.
    private static func history(_ eligible: [AlbumFacts], limit: Int, poolSize: Int, rng: inout SplitMix64) -> [Int64] {
        let played = eligible.filter { $0.playCount > 0 || $0.lastPlayedAt != nil }
        let recent = played.sorted { ($0.lastPlayedAt ?? .distantPast) > ($1.lastPlayedAt ?? .distantPast) }.prefix(poolSize / 2)
        let most = played.sorted { $0.playCount > $1.playCount }.prefix(poolSize / 2)
        var seen = Set<Int64>()
        return shuffledPrefix((recent + most).map(\.id).filter { seen.insert($0).inserted }, limit, &rng)
    }

    /// Albums near the liked ones: same album artist (3), same subcategory (2) or super-genre (1), within
    /// three years (1); unplayed ones get a point, as a recommendation should be news. Needs a score of 2.
    private static func related(_ eligible: [AlbumFacts], _ snapshot: LocalSnapshot, limit: Int,
                                rng: inout SplitMix64) -> [Int64] {
        let liked = snapshot.facts.filter { $0.opinion == .favorite }
        guard !liked.isEmpty else { return [] }
        let artists = Set(liked.map(\.artistID))
        let places = liked.flatMap { snapshot.places[$0.id] ?? [] }
        let subs = Set(places.compactMap { $0.subcategory?.id })
        let supers = Set(places.map(\.superGenre.id))
        let years = liked.compactMap(\.year)
        var scored: [(id: Int64, score: Int)] = []
        for album in eligible where album.opinion != .favorite {
            var score = artists.contains(album.artistID) ? 3 : 0
            let own = snapshot.places[album.id] ?? []
            if own.contains(where: { $0.subcategory.map { subs.contains($0.id) } ?? false }) {
                score += 2
            } else if own.contains(where: { supers.contains($0.superGenre.id) }) {
                score += 1
            }
            if let year = album.year, years.contains(where: { abs($0 - year) <= 3 }) { score += 1 }
            if album.playCount == 0 { score += 1 }
            if score >= 2 { scored.append((album.id, score)) }
        }
        scored.shuffle(using: &rng)
        return scored.sorted { $0.score > $1.score }.prefix(limit).map(\.id)   // stable: ties stay shuffled
    }

    /// Albums of one or two random subcategories of the genre (of the picked ones, when some are picked).
    private static func rotation(_ eligible: [AlbumFacts], _ snapshot: LocalSnapshot, limit: Int, context: FeedContext,
                                 rng: inout SplitMix64) -> [Int64] {
        guard let selection = context.genre else { return [] }
        let offered = selection.subcategories.isEmpty ? selection.superGenre.subcategories : selection.subcategories
        let present = offered.filter { sub in eligible.contains { snapshot.places[$0.id]?.contains { $0.subcategory?.id == sub.id } ?? false } }
        let chosen = Set(present.shuffled(using: &rng).prefix(2).map(\.id))
        let ids = eligible.filter { album in snapshot.places[album.id]?.contains { $0.subcategory.map { chosen.contains($0.id) } ?? false } ?? false }
        return shuffledPrefix(ids.map(\.id), limit, &rng)
    }

    /// Other albums by the album artists of liked albums in the genre, then albums of their subcategories.
    private static func seeds(_ eligible: [AlbumFacts], _ snapshot: LocalSnapshot, limit: Int, context: FeedContext,
                              rng: inout SplitMix64) -> [Int64] {
        guard let selection = context.genre else { return [] }
        let liked = snapshot.facts.filter { $0.opinion == .favorite && snapshot.inGenre($0, selection) }
        guard !liked.isEmpty else { return [] }
        let artists = Set(liked.map(\.artistID))
        let subs = Set(liked.flatMap { snapshot.places[$0.id] ?? [] }.compactMap { $0.subcategory?.id })
        let candidates = eligible.filter { $0.opinion != .favorite }
        let byArtist = candidates.filter { artists.contains($0.artistID) }.map(\.id)
        let bySub = candidates.filter { album in
            !artists.contains(album.artistID)
                && (snapshot.places[album.id]?.contains { $0.subcategory.map { subs.contains($0.id) } ?? false } ?? false)
        }.map(\.id)
        return Array((byArtist.shuffled(using: &rng) + bySub.shuffled(using: &rng)).prefix(limit))
    }

    private static func shuffledPrefix(_ ids: [Int64], _ limit: Int, _ rng: inout SplitMix64) -> [Int64] {
        Array(ids.shuffled(using: &rng).prefix(limit))
    }
}
