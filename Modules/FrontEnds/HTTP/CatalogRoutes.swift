import CrateCore
import CrateDomain
import Foundation
import Hummingbird

/// The Apple Music catalog under /api/v1/catalog (see Docs/HTTP_API.md). Without credentials every route
/// answers 503 `catalog_unavailable` with the reason; the rest of the API is unaffected.
enum CatalogRoutes {
    struct RatingBody: Decodable { var value: String }
    struct LibraryBody: Decodable { var albumIDs: [String] }
    struct AlbumDetail: ResponseEncodable { var album: Album; var tracks: [Track] }
    struct Done: ResponseEncodable { var ok = true }

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime) {
        let catalog = runtime.catalog
        api.get("catalog/auth") { _, _ in Encoded(await catalog.auth()) }
        api.get("catalog/genres") { _, _ in Encoded(GenreTaxonomy.superGenres) }
        api.get("catalog/genres/live") { _, _ in Encoded(try await catalog.client().genres()) }
        api.get("catalog/charts") { request, _ in
            let q = FormQuery(request)
            let genre = q.get("genre")
            let id = CatalogService.chartGenreID(genre)
            if let genre, id == nil { throw CatalogServiceError.unknownGenre(genre) }
            return Encoded(try await catalog.client().chartAlbums(genreID: id, offset: max(0, q.get("offset", as: Int.self) ?? 0),
                                                                  limit: min(max(1, q.get("limit", as: Int.self) ?? 25), 200)).items)
        }
        api.get("catalog/browse/:genre") { request, context in
            let q = FormQuery(request)
            let subs = (q.get("sub") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return Encoded(try await catalog.browse(context.parameters.get("genre") ?? "", subcategories: subs,
                                                    page: max(1, q.get("page", as: Int.self) ?? 1) - 1))
        }
        api.get("catalog/search") { request, _ in
            let q = FormQuery(request)
            guard let term = q.get("q"), !term.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError(.badRequest, code: "bad_query", "give q=words")
            }
            return Encoded(try await catalog.client().search(term: term, limit: min(max(1, q.get("limit", as: Int.self) ?? 10), 25)))
        }
        api.get("catalog/albums/:id") { _, context in
            let found = try await catalog.client().album(id: context.parameters.get("id") ?? "")
            return AlbumDetail(album: found.album, tracks: found.tracks)
        }
        api.get("catalog/me/:signal") { request, context in
            let limit = min(max(1, FormQuery(request).get("limit", as: Int.self) ?? 25), 200)
            let client = try catalog.client()
            switch context.parameters.get("signal") ?? "" {
            case "recent": return Encoded(try await client.recentlyPlayedAlbums(limit: limit))
            case "heavy": return Encoded(try await client.heavyRotationAlbums(limit: limit))
            case "recommendations": return Encoded(try await client.recommendedAlbums(limit: limit))
            case "library": return Encoded(try await client.libraryAlbums(limit: limit))
            case let other: throw APIError(.notFound, code: "not_found", "no signal '\(other)'; signals: recent, heavy, recommendations, library")
            }
        }
        api.put("catalog/ratings/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await request.decode(as: RatingBody.self, context: context)
            switch body.value {
            case "love": try await catalog.client().rate(albumID: id, .love)
            case "dislike": try await catalog.client().rate(albumID: id, .dislike)
            default: throw APIError(.badRequest, code: "bad_request", "value is love or dislike (DELETE clears)")
            }
            return Done()
        }
        api.delete("catalog/ratings/:id") { _, context in
            try await catalog.client().deleteRating(albumID: context.parameters.get("id") ?? "")
            return Done()
        }
        api.post("catalog/library") { request, context in
            let body = try await request.decode(as: LibraryBody.self, context: context)
            guard !body.albumIDs.isEmpty else { throw APIError(.badRequest, code: "bad_request", "give \"albumIDs\"") }
            try await catalog.client().addToLibrary(albumIDs: body.albumIDs)
            return Done()
        }
        api.get("catalog/taxonomy-report") { _, _ in Encoded(try await catalog.taxonomyReport()) }
    }
}

/// Any Encodable value as a JSON response (for types of other modules).
struct Encoded<T: Encodable & Sendable>: ResponseEncodable {
    let value: T
    init(_ value: T) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
