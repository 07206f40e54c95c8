public import CrateDomain
import Foundation

/// Per-endpoint `limit` maxima of the personal endpoints (fact sheet §5).
enum PersonalLimits {
    static let recentlyPlayed = 10
    static let heavyRotation = 10
    static let libraryAlbums = 100
    /// Ids per write request; Apple documents no cap, so the catalog's batch size is used.
    static let writeIDs = 100
}

/// `/v1/me/…`: the user's history, recommendations, library and ratings. These need the
/// Music-User-Token and are never cached (they change as the user listens).
extension AppleCatalogClient {
    /// Recently played albums (playlists and stations left out), pages of 10 followed until `limit`
    /// albums, or `maxPages` pages when given (the feeds take one page: one round trip).
    public func recentlyPlayedAlbums(limit: Int, maxPages: Int? = nil) async throws -> [Album] {
        try await personalAlbums(["me", "recent", "played"], pageSize: PersonalLimits.recentlyPlayed, limit: limit,
                                 maxPages: maxPages, label: "recently played")
    }

    /// Albums in heavy rotation (playlists left out), pages of 10 followed until `limit` albums, or
    /// `maxPages` pages when given.
    public func heavyRotationAlbums(limit: Int, maxPages: Int? = nil) async throws -> [Album] {
        try await personalAlbums(["me", "history", "heavy-rotation"], pageSize: PersonalLimits.heavyRotation, limit: limit,
                                 maxPages: maxPages, label: "heavy rotation")
    }

    /// The albums of the default recommendations (each recommendation's `contents`), in order, without repeats.
    public func recommendedAlbums(limit: Int) async throws -> [Album] {
        let first = CatalogRequest.get(["me", "recommendations"], label: "recommendations")
        let resources = try await follow(first, pageSize: nil, want: limit, exact: false, maxPages: 5) {
            data, request throws(AppleCatalogError) in
            let page = try decode(DataDocument.self, data, request)
            let albums = page.data.flatMap { $0.relationships["contents"]?.data ?? [] }.filter(CatalogMapping.isAlbum)
            return PageContent(items: albums, count: page.data.count, next: page.next)
        }.items
        return try await hydrate(resources)
    }

    /// The library's albums (alphabetical), pages of 100 followed until `limit`. Apple answers 404 for
    /// a page past the end, and for an empty library: both end the list.
    public func libraryAlbums(limit: Int) async throws -> [Album] {
        let first = CatalogRequest.get(["me", "library", "albums"], label: "library albums")
        return try await follow(first, pageSize: PersonalLimits.libraryAlbums, want: limit, endOn404: true) {
            data, request throws(AppleCatalogError) in
            let page = try decode(DataDocument.self, data, request)
            return PageContent(items: page.data.compactMap { CatalogMapping.album($0) }, count: page.data.count, next: page.next)
        }.items
    }

    /// Adds catalog albums to the library (`POST /v1/me/library?ids[albums]=…`, 202 with no body).
    /// Apple ignores ids it cannot add, and the albums may show up only after a while.
    public func addToLibrary(albumIDs: [String]) async throws {
        try await postIDs(["me", "library"], albumIDs, label: "add to library")
    }

    /// Adds catalog albums to the favorites (`POST /v1/me/favorites?ids[albums]=…`, 202 with no body):
    /// the "love" the Apple Music apps show.
    public func addToFavorites(albumIDs: [String]) async throws {
        try await postIDs(["me", "favorites"], albumIDs, label: "add to favorites")
    }

    /// Loves or dislikes an album (`PUT /v1/me/ratings/albums/{id}`).
    public func rate(albumID: String, _ rating: CatalogRating) async throws {
        let body = Data(#"{"type":"rating","attributes":{"value":\#(rating.rawValue)}}"#.utf8)
        let request = CatalogRequest(method: "PUT", target: CatalogURL.target(["me", "ratings", "albums", albumID]),
                                     label: "rating of album \(albumID)", body: body)
        _ = try await fetch(request)
    }

    /// Removes an album's rating (`DELETE`, 204). A rating that was never set gives 404: done all the same.
    public func deleteRating(albumID: String) async throws {
        let request = CatalogRequest(method: "DELETE", target: CatalogURL.target(["me", "ratings", "albums", albumID]),
                                     label: "rating of album \(albumID)")
        _ = try await fetchIfFound(request)
    }

    private func personalAlbums(_ path: [String], pageSize: Int, limit: Int, maxPages: Int?,
                                label: String) async throws(AppleCatalogError) -> [Album] {
        let first = CatalogRequest.get(path, label: label)
        // Pages mix albums with playlists and stations: keep whole pages and filter, so `limit` counts albums.
        let resources = try await follow(first, pageSize: pageSize, want: limit, exact: false,
                                         maxPages: maxPages.map { max(1, $0) } ?? max(3, limit / pageSize + 3)) {
            data, request throws(AppleCatalogError) in
            let page = try decode(DataDocument.self, data, request)
            return PageContent(items: page.data.filter(CatalogMapping.isAlbum), count: page.data.count, next: page.next)
        }.items
        return try await hydrate(resources)
    }

    private func postIDs(_ path: [String], _ ids: [String], label: String) async throws(AppleCatalogError) {
        let ids = ids.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for start in stride(from: 0, to: ids.count, by: PersonalLimits.writeIDs) {
            let chunk = ids[start..<min(start + PersonalLimits.writeIDs, ids.count)]
            let request = CatalogRequest(method: "POST", target: CatalogURL.target(path, [("ids[albums]", chunk.joined(separator: ","))]),
                                         label: label)
            _ = try await fetch(request)
        }
    }
}
