public import CrateDomain
import Foundation

/// Per-endpoint `limit` maxima (fact sheet §5); larger requests are paged.
enum CatalogLimits {
    static let charts = 50
    static let search = 25
    static let batchIDs = 100
    static let albumTracks = 300
    static let artistAlbums = 100
    /// Apple documents no maximum for album views; 10 is their default page.
    static let albumView = 10
}

/// The catalog: genres, charts, search, albums, artists. Everything here may come from the cache.
extension AppleCatalogClient {
    /// The storefront's top-charts genres (`/v1/catalog/{sf}/genres`), every page.
    public func genres() async throws -> [CatalogGenre] {
        let sf = try await resolveStorefront()
        let first = CatalogRequest.get(["catalog", sf, "genres"], label: "genres")
        return try await follow(first, pageSize: nil, want: .max, exact: false) { data, request throws(AppleCatalogError) in
            let document = try decode(DataDocument.self, data, request)
            return PageContent(items: document.data.compactMap(CatalogMapping.genre), count: document.data.count, next: document.next)
        }.items
    }

    /// The most-played albums, overall or of one genre, from `offset`; pages of at most 50 are followed
    /// until `limit` albums. The page's `next` continues after the last album.
    public func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> CatalogPage<Album> {
        let sf = try await resolveStorefront()
        // `chart=most-played` always: `offset` is documented only together with it.
        var query = [("types", "albums"), ("chart", "most-played")]
        if let genreID, !genreID.isEmpty { query.append(("genre", genreID)) }
        if offset > 0 { query.append(("offset", String(offset))) }
        let first = CatalogRequest.get(["catalog", sf, "charts"], query, label: "album charts")
        let result = try await follow(first, pageSize: CatalogLimits.charts, want: limit) { data, request throws(AppleCatalogError) in
            let chart = try decode(ChartsDocument.self, data, request).mostPlayed
            let albums = chart?.data.compactMap { CatalogMapping.album($0) } ?? []
            return PageContent(items: albums, count: chart?.data.count ?? 0, next: chart?.next)
        }
        return CatalogPage(items: result.items, next: result.next)
    }

    /// Albums matching `term`, from `offset`; pages of at most 25 are followed until `limit`.
    public func searchAlbums(term: String, offset: Int, limit: Int) async throws -> CatalogPage<Album> {
        let term = term.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !term.isEmpty else { return CatalogPage(items: [], next: nil) }
        let sf = try await resolveStorefront()
        var query = [("term", term), ("types", "albums")]
        if offset > 0 { query.append(("offset", String(offset))) }
        let first = CatalogRequest.get(["catalog", sf, "search"], query, label: "search")
        let result = try await follow(first, pageSize: CatalogLimits.search, want: limit) { data, request throws(AppleCatalogError) in
            // No hits: Apple leaves the type's key out of `results`.
            let section = try decode(SearchDocument.self, data, request).albums
            let albums = section?.data.compactMap { CatalogMapping.album($0) } ?? []
            return PageContent(items: albums, count: section?.data.count ?? 0, next: section?.next)
        }
        return CatalogPage(items: result.items, next: result.next)
    }

    /// One search for albums, artists and songs (at most 25 each), as search groups in display order
    /// (artists, albums, tracks) with `catalog` hits; groups without hits are left out.
    public func search(term: String, limit: Int) async throws -> [SearchGroupResult] {
        let term = term.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !term.isEmpty, limit > 0 else { return [] }
        let sf = try await resolveStorefront()
        let request = CatalogRequest.get(["catalog", sf, "search"],
                                         [("term", term), ("types", "albums,artists,songs"),
                                          ("limit", String(min(limit, CatalogLimits.search)))], label: "search")
        let document = try decode(SearchDocument.self, try await fetch(request), request)
        let sections: [(SearchGroup, Relationship?)] = [(.artists, document.artists), (.albums, document.albums), (.tracks, document.songs)]
        return sections.compactMap { group, section in
            let hits = (section?.data ?? []).compactMap { CatalogMapping.hit($0) }
            guard !hits.isEmpty else { return nil }
            var result = SearchGroupResult(group: group, total: hits.count, offset: 0)
            result.catalog = hits
            return result
        }
    }

    /// Songs matching `term` as tracks (previews only), pages of at most 25 followed until `limit`.
    public func searchSongs(term: String, limit: Int) async throws -> [Track] {
        let term = term.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !term.isEmpty else { return [] }
        let sf = try await resolveStorefront()
        let first = CatalogRequest.get(["catalog", sf, "search"], [("term", term), ("types", "songs")], label: "search")
        return try await follow(first, pageSize: CatalogLimits.search, want: limit) { data, request throws(AppleCatalogError) in
            let section = try decode(SearchDocument.self, data, request).songs
            let tracks = section?.data.filter { $0.type == "songs" }.compactMap { CatalogMapping.track($0) } ?? []
            return PageContent(items: tracks, count: section?.data.count ?? 0, next: section?.next)
        }.items
    }

    /// An album with its tracks (the default representation includes them, 300 at most; the rest
    /// come from `tracks.next`). Artwork at `artworkSize` pixels.
    public func album(id: String, artworkSize: Int = 600) async throws -> (album: Album, tracks: [Track]) {
        let id = id.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty else { throw AppleCatalogError.invalidRequest("an album id is needed") }
        let sf = try await resolveStorefront()
        let request = CatalogRequest.get(["catalog", sf, "albums", id], label: "album \(id)")
        let document = try decode(DataDocument.self, try await fetch(request), request)
        guard let resource = document.data.first(where: CatalogMapping.isAlbum), resource.attributes != nil else {
            throw AppleCatalogError.notFound("album \(id)")
        }
        var songs = CatalogMapping.songs(of: resource)
        if let next = resource.relationships["tracks"]?.next, let target = CatalogURL.rootRelative(next) {
            let rest = CatalogRequest(target: target, label: "tracks of album \(id)")
            songs += try await follow(rest, pageSize: CatalogLimits.albumTracks, want: .max, exact: false, maxPages: 20) {
                data, request throws(AppleCatalogError) in
                let page = try decode(DataDocument.self, data, request)
                return PageContent(items: page.data.filter { $0.type == "songs" }, count: page.data.count, next: page.next)
            }.items
        }
        let tracks = CatalogMapping.tracks(ofAlbum: resource, songs: songs, artworkSize: artworkSize)
        guard let album = CatalogMapping.album(resource, artworkSize: artworkSize, tracks: tracks) else {
            throw AppleCatalogError.notFound("album \(id)")
        }
        return (album, tracks)
    }

    /// Albums by id, asked 100 at a time, in the order given; ids Apple does not know are left out.
    public func albums(ids: [String]) async throws -> [Album] {
        var unique: [String] = []
        var seen: Set<String> = []
        for id in ids.map({ $0.trimmingCharacters(in: .whitespaces) }) where !id.isEmpty && seen.insert(id).inserted {
            unique.append(id)
        }
        guard !unique.isEmpty else { return [] }
        let sf = try await resolveStorefront()
        var found: [String: Album] = [:]
        for start in stride(from: 0, to: unique.count, by: CatalogLimits.batchIDs) {
            let chunk = unique[start..<min(start + CatalogLimits.batchIDs, unique.count)]
            let request = CatalogRequest.get(["catalog", sf, "albums"], [("ids", chunk.joined(separator: ","))], label: "albums")
            // A 404: none of these ids exists.
            guard let data = try await fetchIfFound(request) else { continue }
            for resource in try decode(DataDocument.self, data, request).data {
                if let album = CatalogMapping.album(resource) { found[resource.id] = album }
            }
        }
        return unique.compactMap { found[$0] }
    }

    /// An artist's albums, pages of at most 100 followed until `limit`.
    public func artistAlbums(artistID: String, limit: Int) async throws -> [Album] {
        let sf = try await resolveStorefront()
        let first = CatalogRequest.get(["catalog", sf, "artists", artistID, "albums"], label: "albums of artist \(artistID)")
        let resources = try await follow(first, pageSize: CatalogLimits.artistAlbums, want: limit) { data, request throws(AppleCatalogError) in
            let page = try decode(DataDocument.self, data, request)
            return PageContent(items: page.data.filter(CatalogMapping.isAlbum), count: page.data.count, next: page.next)
        }.items
        return try await hydrate(resources)
    }

    /// Albums Apple relates to this one (the `related-albums` view), up to `limit`.
    public func relatedAlbums(albumID: String, limit: Int) async throws -> [Album] {
        let sf = try await resolveStorefront()
        let first = CatalogRequest.get(["catalog", sf, "albums", albumID, "view", "related-albums"], label: "albums related to \(albumID)")
        let resources = try await follow(first, pageSize: CatalogLimits.albumView, want: limit) { data, request throws(AppleCatalogError) in
            let page = try decode(DataDocument.self, data, request)
            return PageContent(items: page.data.filter(CatalogMapping.isAlbum), count: page.data.count, next: page.next)
        }.items
        return try await hydrate(resources)
    }

    /// Album resources as albums, in order. Some lists hold bare identifiers (no attributes): those are
    /// looked up in batches. Duplicates are dropped.
    func hydrate(_ resources: [Resource]) async throws(AppleCatalogError) -> [Album] {
        var seen: Set<String> = []
        let resources = resources.filter { seen.insert($0.id).inserted }
        let bare = resources.filter { $0.attributes == nil && $0.type == "albums" }.map(\.id)
        var looked: [String: Album] = [:]
        if !bare.isEmpty {
            do {
                for album in try await albums(ids: bare) { if let id = album.externalID { looked[id] = album } }
            } catch let error as AppleCatalogError {
                throw error
            } catch {
                throw .transport(ErrorText.describe(error))
            }
        }
        return resources.compactMap { CatalogMapping.album($0) ?? looked[$0.id] }
    }
}
