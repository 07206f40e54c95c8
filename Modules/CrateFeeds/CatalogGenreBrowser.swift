public import CrateDomain
import Foundation

/// One page of a genre selection.
public struct GenreBrowsePage: Sendable, Hashable {
    public var selection: GenreSelection
    /// From 0.
    public var index: Int
    public var albums: [Album]
    /// Whether page `index + 1` may hold albums.
    public var hasMore: Bool

    public init(selection: GenreSelection, index: Int, albums: [Album], hasMore: Bool) {
        self.selection = selection
        self.index = index
        self.albums = albums
        self.hasMore = hasMore
    }
}

/// Albums for a genre selection, a page of 50 at a time up to 500 (PRD 7.2, 7.6; ADR-104, ADR-116):
/// a super-genre alone reads the charts of its genre ids, interleaved by rank, and when they run dry the
/// rest comes from a search for its name; chosen subcategories read searches for their terms, interleaved.
/// What was fetched is kept per selection, so going back to a genre or to an earlier page costs nothing.
/// Starting a new selection cancels the fetches of the one before (PRD 7.5, rapid genre switching).
public actor CatalogGenreBrowser {
    private let catalog: any CatalogAlbumPaging
    private let pageSize: Int
    private let cap: Int
    private var feeds: [GenreSelection: GenreFeed] = [:]
    private var running: [Int: Running] = [:]
    private var nextRunID = 0

    private struct Running {
        let selection: GenreSelection
        let task: Task<GenreBrowsePage, any Error>
    }

    public init(catalog: any CatalogAlbumPaging, pageSize: Int = GenreMerge.pageSize, cap: Int = GenreMerge.albumCap) {
        self.catalog = catalog
        self.pageSize = pageSize
        self.cap = cap
    }

    /// Page `page` (from 0) of `selection`. Throws CancellationError when a different selection is browsed
    /// before this one is done, or when the caller is cancelled.
    public func browse(_ selection: GenreSelection, page: Int = 0) async throws -> GenreBrowsePage {
        for run in running.values where run.selection != selection {
            run.task.cancel()
        }
        // Pages of one selection load one after another, so each starts from what the one before fetched.
        let previous = running.filter { $0.value.selection == selection }.max { $0.key < $1.key }?.value.task
        let id = nextRunID
        nextRunID += 1
        let task = Task { try await self.load(selection, page: page, after: previous) }
        running[id] = Running(selection: selection, task: task)
        defer { running[id] = nil }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Forgets everything fetched (charts move daily; a long-running daemon calls this now and then).
    public func clearCache() {
        feeds = [:]
    }

    private func load(_ selection: GenreSelection, page index: Int,
                      after previous: Task<GenreBrowsePage, any Error>?) async throws -> GenreBrowsePage {
        _ = try? await previous?.value
        let range = GenreMerge.pageRange(index, size: pageSize, cap: cap)
        if range.isEmpty {  // past the cap: nothing to fetch
            return GenreBrowsePage(selection: selection, index: index, albums: [], hasMore: false)
        }
        while true {
            try Task.checkCancellation()
            let feed = feeds[selection] ?? GenreFeed(selection, maxOffset: 2 * cap)
            let settled = feed.settled(cap: cap)
            let requests = feed.requests(toReach: range.upperBound, settled: settled.albums.count)
            if settled.albums.count >= range.upperBound || settled.complete || requests.isEmpty {
                feeds[selection] = feed
                let more = range.upperBound < cap && (settled.albums.count > range.upperBound || !settled.complete)
                let albums = GenreMerge.page(settled.albums, index: index, size: pageSize, cap: cap)
                return GenreBrowsePage(selection: selection, index: index, albums: albums, hasMore: more)
            }
            let results = try await Self.fetch(requests, from: catalog)
            try Task.checkCancellation()
            // Re-read: another page of this selection may have stored more in the meantime.
            var fresh = feeds[selection] ?? feed
            fresh.apply(results)
            feeds[selection] = fresh
        }
    }

    /// One round of requests, all at once.
    private static func fetch(_ requests: [GenreFeed.Request],
                              from catalog: any CatalogAlbumPaging) async throws -> [GenreFeed.Response] {
        try await withThrowingTaskGroup(of: GenreFeed.Response.self) { group in
            for request in requests {
                group.addTask {
                    let page = switch request.query {
                    case .chart(let genreID):
                        try await catalog.chartAlbums(genreID: genreID, offset: request.offset, limit: request.limit)
                    case .search(let term):
                        try await catalog.searchAlbums(term: term, offset: request.offset, limit: request.limit)
                    }
                    return GenreFeed.Response(request: request, albums: page.items, hasNext: page.next != nil,
                                              nextOffset: page.nextOffset)
                }
            }
            var responses: [GenreFeed.Response] = []
            for try await response in group {
                responses.append(response)
            }
            return responses
        }
    }
}
