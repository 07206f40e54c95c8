public import CrateDomain
import Foundation

/// A signal drawn from a music catalog (ADR-115, ADR-118). Each makes its calls in parallel; a signal
/// fails only when every one of its calls failed, so one bad endpoint costs part of a signal, not all of it.
public struct CatalogSignal: WallSignal {
    public let id: SignalID
    public var source: String { SignalSource.catalog }
    let catalog: any FeedCatalog
    let profile: FeedProfile
    /// How far back a chart album counts as a new release (the API has no new-releases chart, §3.14).
    public static let newReleaseDays = 180

    public init(_ id: SignalID, catalog: any FeedCatalog, profile: FeedProfile) {
        self.id = id
        self.catalog = catalog
        self.profile = profile
    }

    public func candidates(limit: Int, context: FeedContext) async throws -> [Album] {
        var rng = context.rng(for: id, source: source)
        let calls = plan(limit: limit, context: context, rng: &rng)
        guard !calls.isEmpty else { return [] }
        var albums = try await Self.gather(calls)
        if let genre = context.genre, id == .personalHistory || id == .genreRecommendations {
            albums = albums.filter { GenreTaxonomy.matches($0.allGenres, genre) }
        }
        albums = GenreMerge.deduplicated(albums).filter { !context.excluded.contains(FeedKey.of($0)) }
        switch id {
        case .newReleases, .genreNewReleases:
            return Array(newestFirst(albums).prefix(limit))
        case .recommendations, .genreRecommendations:
            return Array(albums.prefix(limit))          // Apple's order is its ranking
        default:
            return Array(albums.shuffled(using: &rng).prefix(limit))
        }
    }

    typealias Call = @Sendable () async throws -> [Album]

    /// The calls this signal makes for one fetch.
    private func plan(limit: Int, context: FeedContext, rng: inout SplitMix64) -> [Call] {
        let catalog = catalog
        let charts = min(max(limit, 10), FeedPageSize.charts)
        let search = min(max(limit, 10), FeedPageSize.search)
        func chart(_ genreID: String?, offset: Int) -> Call { { try await catalog.chartAlbums(genreID: genreID, offset: offset, limit: charts) } }
        func find(_ term: String, offset: Int) -> Call { { try await catalog.searchAlbums(term: term, offset: offset, limit: search) } }
        let personal: [Call] = [
            { try await catalog.recentlyPlayedAlbums(limit: FeedPageSize.history) },
            { try await catalog.heavyRotationAlbums(limit: FeedPageSize.history) },
            { try await catalog.libraryAlbums(limit: FeedPageSize.library) },
        ]
        // Later rounds of the same feed go deeper rather than asking the same page again. Chart depth is not
        // documented (fact sheet §3.3): random offsets stay within the first hundred or so.
        let depth = context.round * charts

        switch id {
        case .listeningHistory, .personalHistory:
            return personal
        case .recommendations, .genreRecommendations:
            return [{ try await catalog.recommendedAlbums(limit: max(limit * 2, 20)) }]
        case .popularCharts:
            return profile.preferredGenres(2, rng: &rng).map { chart($0.chartGenreIDs.first, offset: depth) }
                + [chart(nil, offset: depth)]
        case .newReleases:
            return profile.preferredGenres(2, rng: &rng).map { chart($0.chartGenreIDs.first, offset: 0) } + [chart(nil, offset: 0)]
        case .wildCard:
            let genres = GenreTaxonomy.superGenres.shuffled(using: &rng).prefix(2)
            let sub = genres.first?.subcategories.randomElement(using: &rng)
            return genres.map { chart($0.chartGenreIDs.first, offset: Int.random(in: 0...100, using: &rng)) }
                + (sub.map { [find($0.searchTerm, offset: Int.random(in: 0...50, using: &rng))] } ?? [])
        case .trending:
            guard let genre = context.genre else { return [] }
            let offset = Int.random(in: 0...60, using: &rng) + depth
            if genre.subcategories.isEmpty { return [chart(genre.superGenre.chartGenreIDs.first, offset: offset)] }
            return genre.subcategories.map { find($0.searchTerm, offset: offset / 4) }
        case .genreNewReleases:
            guard let genre = context.genre else { return [] }
            return genre.superGenre.chartGenreIDs.prefix(2).map { chart($0, offset: 0) }
        case .subcategoryRotation:
            guard let genre = context.genre else { return [] }
            let offered = genre.subcategories.isEmpty ? genre.superGenre.subcategories : genre.subcategories
            return offered.shuffled(using: &rng).prefix(2).map { find($0.searchTerm, offset: Int.random(in: 0...40, using: &rng)) }
        case .seedExpansion:
            guard let genre = context.genre else { return [] }
            let liked = profile.catalogFavorites.filter { GenreTaxonomy.matches($0.allGenres, genre) }
            let related: [Call] = liked.compactMap(\.externalID).shuffled(using: &rng).prefix(3).map { id in
                { try await catalog.relatedAlbums(albumID: id, limit: FeedPageSize.search) }
            }
            // Other albums of the artists the listener liked (in either source), looked up by name.
            let artists = (liked.map(\.artist) + profile.favoriteArtists).shuffled(using: &rng).prefix(2)
            let byArtist: [Call] = artists.map { artist in
                { try await catalog.searchAlbums(term: artist, offset: 0, limit: FeedPageSize.search).filter { $0.artist == artist } }
            }
            return related + byArtist
        }
    }

    /// Newest release first; within `newReleaseDays` when there are any, else whatever is newest.
    private func newestFirst(_ albums: [Album]) -> [Album] {
        let dated = albums.compactMap { album in Self.releaseDate(album).map { (album, $0) } }.sorted { $0.1 > $1.1 }
        let cutoff = profile.now.addingTimeInterval(-Double(Self.newReleaseDays) * 86_400)
        let recent = dated.filter { $0.1 >= cutoff && $0.1 <= profile.now.addingTimeInterval(86_400) }
        return (recent.isEmpty ? dated : recent).map(\.0)
    }

    /// `YYYY-MM-DD` or `YYYY` (fact sheet §3): a year alone counts as its first day.
    static func releaseDate(_ album: Album) -> Date? {
        guard let text = album.date else { return album.year.flatMap { day("\($0)-01-01") } }
        return day(text.count >= 10 ? String(text.prefix(10)) : "\(text.prefix(4))-01-01")
    }

    private static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    /// Runs the calls in parallel; the successes in call order, or the first error when all failed.
    static func gather(_ calls: [Call]) async throws -> [Album] {
        let outcomes = await inParallel(calls.map { call in
            { @Sendable () async -> Result<[Album], any Error> in
                do { return .success(try await call()) } catch { return .failure(error) }
            }
        })
        var albums: [Album] = []
        var failures: [any Error] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let found): albums += found
            case .failure(let error): failures.append(error)
            }
        }
        if failures.count == outcomes.count, let first = failures.first { throw first }
        return albums
    }
}
