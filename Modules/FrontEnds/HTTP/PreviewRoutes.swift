import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import Hummingbird

/// Catalog previews under /api/v1 (see Docs/HTTP_API.md, Docs/CATALOG.md): a catalog album plays as its songs'
/// 30-second previews. Catalog failures answer as under the catalog (503, 403, 404, 502).
enum PreviewRoutes {

    static func add(to api: RouterGroup<BasicRequestContext>, player: PlayerService) {
        // `{id}` is the catalog id or `applemusic:ID`; the body (optional) says where to start.
        api.post("catalog/albums/:id/play") { request, context in
            let body = try await PlayerRoutes.optionalBody(API.PlayFrom.self, request, context)
            return Encoded(try await player.playCatalogAlbum(context.parameters.get("id") ?? "", from: body?.from ?? 1))
        }
    }
}
