import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird

/// Loudness under /api/v1 (see Docs/HTTP_API.md): the scan runs as a library job (progress as `library` events, the
/// report in the job's `loudness`); the values answer directly.
enum LoudnessRoutes {

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime, jobs: LibraryJobs, player: PlayerService) {
        let loudness = runtime.library.loudness
        api.get("library/loudness") { _, _ in
            // The policy in effect: the configured one, with the mode chosen while running (MPD's replay_gain_mode).
            Summary(summary: try loudness.summary(), policy: await player.loudnessPolicy)
        }
        api.post("library/loudness/scan") { request, context in
            let body = try await PlayerRoutes.optionalBody(API.LoudnessScan.self, request, context)
            for path in body?.paths ?? [] where !path.hasPrefix("/") {
                throw APIError(.badRequest, code: "bad_request", "paths must be absolute: \(path)")
            }
            try jobs.loudnessScan(LoudnessScanRequest(paths: body?.paths ?? [], albums: body?.album ?? false,
                                                      force: body?.force ?? false))
            return EditedResponse(status: .accepted, response: LibraryJobs.Started(job: jobs.job))
        }
        api.get("albums/:id/loudness") { _, context in
            guard let id = context.parameters.get("id", as: Int64.self) else {
                throw APIError(.badRequest, code: "bad_request", "album id must be a number")
            }
            return try loudness.album(id: id)
        }
    }

    /// How much of the library is measured, and the settings the player applies.
    struct Summary: ResponseEncodable {
        var summary: LoudnessSummary
        var policy: LoudnessPolicy
    }
}

extension AlbumLoudnessInfo: ResponseEncodable {}
