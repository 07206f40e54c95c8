import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird

/// Search, sorted lists, album-artist browse, favorites and dislikes, home and lyrics under /api/v1
/// (see Docs/HTTP_API.md). Changes publish `library` events (through Core's collection).
enum FindingRoutes {
    struct OpinionBody: Decodable { var value: Opinion? }

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime) {
        let store = runtime.collection
        api.get("search") { request, _ in
            let q = FormQuery(request)
            let group = try q.get("group").map { try parse($0, as: SearchGroup.self, "group") }
            return try await runtime.search.search(
                q.get("q") ?? "", scope: try parse(q.get("scope") ?? "local", as: SearchScope.self, "scope"),
                groups: group.map { [$0] } ?? SearchGroup.allCases, offset: max(0, q.get("offset", as: Int.self) ?? 0),
                limit: min(max(0, q.get("limit", as: Int.self) ?? (group == nil ? 5 : 50)), 500))
        }
        api.get("albums") { request, _ in
            let q = FormQuery(request)
            return try store.albums(sort: try listSort(q, default: AlbumSort.artist), includeDisliked: q.get("disliked") == "true")
        }
        api.get("tracks") { request, _ in
            let q = FormQuery(request)
            return try store.tracks(sort: try listSort(q, default: TrackSort.artist), offset: max(0, q.get("offset", as: Int.self) ?? 0),
                                    limit: min(max(0, q.get("limit", as: Int.self) ?? 500), 10_000))
        }
        api.get("artists") { request, _ in
            let q = FormQuery(request)
            return try store.albumArtists(order: try parse(q.get("order") ?? "asc", as: SortDirection.self, "order"),
                                          favoritesFirst: q.get("favoritesFirst") == "true")
        }
        api.get("artists/:id") { _, context in try artist(store, context) }
        api.get("artists/:id/albums") { request, context in
            try store.albums(sort: try listSort(FormQuery(request), default: AlbumSort.year), artistID: try artist(store, context).id)
        }
        api.get("home") { _, _ in try store.home() }
        api.get("tracks/:id/lyrics") { _, context in
            let id = try number(context, "id")
            guard let track = try store.track(id: id) else { throw StoreError.trackNotFound(id) }
            guard let lyrics = try await runtime.lyrics.lyrics(for: track) else {
                throw APIError(.notFound, code: "not_found", "no lyrics for track \(id)")
            }
            return lyrics
        }

        api.get("favorites") { _, _ in try store.favorites() }
        api.put("favorites/:kind/:id") { _, context in
            try setOpinion(store, context, .favorite)
        }
        api.delete("favorites/:kind/:id") { _, context in
            try setOpinion(store, context, nil, only: .favorite)
        }
        api.get("dislikes") { _, _ in try store.favorites().dislikedAlbums }
        // PUT/DELETE dislikes/albums/{album} are in FeedRoutes: a dislike also goes to the catalog.
    }


    /// Sets an opinion; clearing with `only` clears just that opinion (DELETE /favorites leaves a dislike alone).
    private static func setOpinion(_ store: MusicCollection, _ context: BasicRequestContext, _ value: Opinion?,
                                   only: Opinion? = nil) throws -> API.OpinionState {
        let kind = try parse(context.parameters.get("kind") ?? "", as: FavoriteKind.self, "kind")
        let id = try number(context, "id")
        if value == nil, let only {
            return API.OpinionState(kind: kind, id: id, opinion: try store.clearOpinion(kind, id: id, only: only))
        }
        try store.setOpinion(kind, id: id, value)
        return API.OpinionState(kind: kind, id: id, opinion: value)
    }

    /// `sort`, `order` (asc|desc) and `favoritesFirst` query parameters.
    static func listSort<K: RawRepresentable & Codable & Hashable & Sendable>(_ q: FormQuery, default key: K) throws -> ListSort<K>
    where K.RawValue == String {
        ListSort(try q.get("sort").map { try parse($0, as: K.self, "sort") } ?? key,
                 try parse(q.get("order") ?? "asc", as: SortDirection.self, "order"),
                 favoritesFirst: q.get("favoritesFirst") == "true")
    }

    static func parse<T: RawRepresentable>(_ text: String, as: T.Type, _ name: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw APIError(.badRequest, code: "bad_request", "'\(text)' is not a valid \(name)") }
        return value
    }

    static func number(_ context: BasicRequestContext, _ name: String) throws -> Int64 {
        guard let id = context.parameters.get(name, as: Int64.self) else {
            throw APIError(.badRequest, code: "bad_request", "\(name) must be a number")
        }
        return id
    }

    private static func artist(_ store: MusicCollection, _ context: BasicRequestContext) throws -> Artist {
        let id = try number(context, "id")
        guard let artist = try store.artist(id: id) else { throw StoreError.notFound(kind: "artist", query: String(id)) }
        return artist
    }
}

extension SearchResults: ResponseEncodable {}
extension Artist: ResponseEncodable {}
extension Home: ResponseEncodable {}
extension Lyrics: ResponseEncodable {}
extension FavoritesList: ResponseEncodable {}
extension Playlist: ResponseEncodable {}
extension PlaylistEntry: ResponseEncodable {}
extension PlaylistImportReport: ResponseEncodable {}
