public import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird

/// The HTTP API under /api/v1. Every error is JSON: {"error": {"code": ..., "message": ...}}.
enum APIRouter {
    static func make(runtime: CrateRuntime, player: PlayerService, jobs: LibraryJobs, feeds: FeedService,
                     web: WebAssets, frontEnds: FrontEndBoard) -> Router<BasicRequestContext> {
        let started = Date()
        let router = Router()
        // The door first: requests it refuses reach no handler (and do no work).
        router.add(middleware: RequestGuard(policy: AccessPolicy(settings: runtime.settings), logger: runtime.logger))
        router.add(middleware: JSONErrorMiddleware())
        SessionRoutes.add(to: router, settings: runtime.settings.http)
        WebRoutes.add(to: router, assets: web, feeds: feeds, coverSize: runtime.settings.thumbnailSize)
        let api = router.group("api/v1")
        api.get("health") { _, _ in
            Health(status: "ok", version: CrateVersion.string, uptimeSeconds: Date().timeIntervalSince(started),
                   library: try runtime.collection.counts(), frontEnds: frontEnds.all)
        }
        api.get("plugins") { _, _ in runtime.pluginDescriptors() }
        api.get("albums/:id") { _, context in try album(runtime, context) }
        api.get("albums/:id/tracks") { _, context in try runtime.collection.tracks(albumID: try album(runtime, context).id) }
        PlayerRoutes.add(to: api, player: player, store: runtime,
                         eventClients: EventClients(limit: runtime.settings.http.maxEventClients))
        LibraryRoutes.add(to: api, runtime: runtime, jobs: jobs, player: player)
        FindingRoutes.add(to: api, runtime: runtime)
        PlaylistRoutes.add(to: api, runtime: runtime, player: player)
        StationRoutes.add(to: api, runtime: runtime, player: player)
        AccountRoutes.add(to: api, runtime: runtime)
        CatalogRoutes.add(to: api, runtime: runtime)
        PreviewRoutes.add(to: api, player: player)
        FeedRoutes.add(to: api, feeds: feeds)
        OutputRoutes.add(to: router, api: api, player: player)
        return router
    }

    private static func album(_ runtime: CrateRuntime, _ context: BasicRequestContext) throws -> Album {
        guard let id = context.parameters.get("id", as: Int64.self) else {
            throw APIError(.badRequest, code: "bad_request", "album id must be a number")
        }
        guard let album = try runtime.collection.album(id: id) else {
            throw APIError(.notFound, code: "not_found", "no album with id \(id)")
        }
        return album
    }
}

struct Health: ResponseEncodable {
    var status: String
    var version: String
    var uptimeSeconds: Double
    var library: LibraryCounts
    var frontEnds: [FrontEndStatus]
}

extension Album: ResponseEncodable {}
extension Track: ResponseEncodable {}
extension PluginDescriptor: ResponseEncodable {}
extension API.PlaylistDetail: ResponseEncodable {}
extension API.OpinionState: ResponseEncodable {}
extension API.Deleted: ResponseEncodable {}
extension API.Cleared: ResponseEncodable {}
extension LibraryJobs.Started: ResponseEncodable {}
