import Foundation

/// Pure rules of genre browsing: the union of ranked album lists, the sparse fill, pages and the cap.
public enum GenreMerge {
    /// Albums per page: the most one charts request returns (PRD 7.6).
    public static let pageSize = 50
    /// How deep one genre selection goes (PRD 7.6: "a reasonable maximum of 500 albums per genre").
    public static let albumCap = 500

    /// What makes two albums the same: the catalog id, else the identity.
    public static func key(_ album: Album) -> String {
        album.externalID ?? album.identity
    }

    /// The union (OR) of ranked lists without duplicates, interleaved by rank: the 1st of each list, then the
    /// 2nd of each, and so on, lists in the order given. Why interleave: appending would bury the second
    /// genre's number one under the whole of the first genre's list, so picking two genres would look like
    /// picking one; ranks are the only common scale the lists have (ADR-104: "maintain chart-rank ordering").
    /// An album in several lists stays at its first (best) place.
    public static func union(_ lists: [[Album]]) -> [Album] {
        var seen = Set<String>()
        var out: [Album] = []
        let rounds = lists.map(\.count).max() ?? 0
        for rank in 0..<rounds {
            for list in lists where rank < list.count && seen.insert(key(list[rank])).inserted {
                out.append(list[rank])
            }
        }
        return out
    }

    /// `primary` (deduplicated), then `extra` albums it lacks, `wanted` at most in all: how sparse charts are
    /// topped up from search (PRD 7.2, ADR-104). Primary albums come first because they carry chart rank.
    public static func fill(_ primary: [Album], from extra: [Album], upTo wanted: Int) -> [Album] {
        Array(deduplicated(primary + extra).prefix(max(0, wanted)))
    }

    /// The albums without later duplicates, in order.
    public static func deduplicated(_ albums: [Album]) -> [Album] {
        var seen = Set<String>()
        return albums.filter { seen.insert(key($0)).inserted }
    }

    /// The positions page `index` (from 0) covers, cut at `cap`; empty past it.
    public static func pageRange(_ index: Int, size: Int = pageSize, cap: Int = albumCap) -> Range<Int> {
        guard index >= 0, size > 0 else { return 0..<0 }
        let start = min(index * size, cap)
        return start..<min(start + size, cap)
    }

    /// Page `index` of `albums`, never past `cap`.
    public static func page(_ albums: [Album], index: Int, size: Int = pageSize, cap: Int = albumCap) -> [Album] {
        let range = pageRange(index, size: size, cap: cap).clamped(to: 0..<albums.count)
        return Array(albums[range])
    }
}

/// What one genre selection has fetched so far and what it needs next; no networking, the caller runs the
/// requests. A super-genre alone reads one chart per chart genre id, interleaved by `GenreMerge.union`, and
/// once every chart has ended, a search for the super-genre's name fills the rest (`GenreMerge.fill`).
/// Chosen subcategories read one search per search term, interleaved the same way (ADR-116).
/// Lists only grow, and only their settled part is shown, so a page once given never changes.
public struct GenreFeed: Sendable {
    /// Most albums per charts request (fact sheet 3.1: 50, higher unverified).
    public static let chartLimit = 50
    /// Most albums per search request (fact sheet 3.2).
    public static let searchLimit = 25

    public enum Query: Sendable, Hashable {
        case chart(genreID: String)
        case search(term: String)
    }

    public struct Request: Sendable, Hashable {
        /// Which list the answer belongs to.
        public var stream: Int
        public var query: Query
        public var offset: Int
        public var limit: Int
    }

    public struct Response: Sendable {
        public var request: Request
        public var albums: [Album]
        /// Whether the service said there are more (`next`).
        public var hasNext: Bool
        /// The offset the service's `next` names, when it names one; else the request's offset + limit.
        public var nextOffset: Int?

        public init(request: Request, albums: [Album], hasNext: Bool, nextOffset: Int? = nil) {
            self.request = request
            self.albums = albums
            self.hasNext = hasNext
            self.nextOffset = nextOffset
        }
    }

    struct Stream: Sendable {
        var query: Query
        var albums: [Album] = []
        var nextOffset = 0
        var finished = false
    }

    /// Interleaved lists, then the one that tops them up (at index `ranked.count`) once they all ended.
    var ranked: [Stream]
    var filler: Stream?
    /// Offsets past this are not asked for: a guard against a service whose `next` never ends.
    let maxOffset: Int

    public init(_ selection: GenreSelection, maxOffset: Int = 2 * GenreMerge.albumCap) {
        if selection.subcategories.isEmpty {
            ranked = selection.superGenre.chartGenreIDs.map { Stream(query: .chart(genreID: $0)) }
            filler = Stream(query: .search(term: selection.superGenre.name))
        } else {
            ranked = selection.subcategories.map { Stream(query: .search(term: $0.searchTerm)) }
            filler = nil
        }
        self.maxOffset = maxOffset
    }

    /// The albums whose places can no longer change, at most `cap`, and whether that is all there will be.
    /// While a list is still open, only the rounds every open list has reached are settled: a later answer
    /// could still put an album into an earlier round.
    public func settled(cap: Int) -> (albums: [Album], complete: Bool) {
        if let depth = ranked.filter({ !$0.finished }).map(\.albums.count).min() {
            return (Array(GenreMerge.union(ranked.map { Array($0.albums.prefix(depth)) }).prefix(cap)), false)
        }
        let union = GenreMerge.union(ranked.map(\.albums))
        guard let filler else { return (Array(union.prefix(cap)), true) }
        return (GenreMerge.fill(union, from: filler.albums, upTo: cap), filler.finished)
    }

    /// The requests that bring the settled albums from `settled` toward `target` (empty when nothing can).
    /// Open lists are each asked for their share of what is missing, at their service's largest page.
    public func requests(toReach target: Int, settled: Int) -> [Request] {
        let missing = target - settled
        guard missing > 0 else { return [] }
        let open = ranked.indices.filter { !ranked[$0].finished }
        if let depth = open.map({ ranked[$0].albums.count }).min() {
            let wanted = depth + (missing + open.count - 1) / open.count
            return open.flatMap { requests(stream: $0, ranked[$0], upTo: wanted) }
        }
        guard let filler, !filler.finished else { return [] }
        return requests(stream: ranked.count, filler, upTo: filler.albums.count + missing)
    }

    /// Stores answers in offset order; answers for offsets another round already stored are skipped.
    public mutating func apply(_ responses: [Response]) {
        let ordered = responses.sorted { ($0.request.stream, $0.request.offset) < ($1.request.stream, $1.request.offset) }
        for response in ordered {
            let index = response.request.stream
            if index < ranked.count {
                Self.apply(response, to: &ranked[index], maxOffset: maxOffset)
            } else if index == ranked.count, var stream = filler {
                Self.apply(response, to: &stream, maxOffset: maxOffset)
                filler = stream
            }
        }
    }

    private static func apply(_ response: Response, to stream: inout Stream, maxOffset: Int) {
        guard !stream.finished, response.request.offset == stream.nextOffset else { return }
        let offset = response.request.offset
        stream.albums += response.albums
        // Follow `next` (fact sheet 5); one that does not move forward is ignored.
        stream.nextOffset = response.nextOffset.flatMap { $0 > offset ? $0 : nil } ?? offset + response.request.limit
        // An empty page ends a list even if `next` says otherwise, so a broken `next` cannot loop forever.
        stream.finished = !response.hasNext || response.albums.isEmpty || stream.nextOffset >= maxOffset
    }

    private func requests(stream index: Int, _ stream: Stream, upTo count: Int) -> [Request] {
        let limit = switch stream.query {
        case .chart: Self.chartLimit
        case .search: Self.searchLimit
        }
        let pages = max(0, (count - stream.albums.count + limit - 1) / limit)
        return (0..<pages).map { stream.nextOffset + $0 * limit }.filter { $0 < maxOffset }
            .map { Request(stream: index, query: stream.query, offset: $0, limit: limit) }
    }
}
