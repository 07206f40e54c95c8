import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird

/// Library work under /api/v1 (see Docs/HTTP_API.md): imports and rescans run as background jobs that report
/// progress as `library` events; edits, deletion, relinks, maintenance and artwork answer directly.
enum LibraryRoutes {
    struct Status: ResponseEncodable {
        var importMode: ImportMode
        var deleteOriginals: Bool
        var libraryFolder: String
        var importFolder: String
        var job: LibraryJobs.Job?
        var artworkRepair: ArtworkRepairStatus
        var storage: StorageSizes
        var diagnostics: LibraryDiagnostics
    }

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime, jobs: LibraryJobs, player: PlayerService) {
        let library = runtime.library
        api.get("library/status") { _, _ in
            Status(importMode: library.currentImportMode(), deleteOriginals: runtime.settings.deleteOriginals,
                   libraryFolder: runtime.settings.libraryFolder.path, importFolder: runtime.settings.importFolder.path,
                   job: jobs.job, artworkRepair: jobs.artworkRepair, storage: library.storageSizes(),
                   diagnostics: try library.diagnostics())
        }
        api.post("library/rescan") { _, _ in
            try jobs.rescan()
            return accepted(jobs)
        }
        api.post("library/import") { request, context in
            let body = try await request.decode(as: API.Import.self, context: context)
            guard !body.paths.isEmpty else { throw APIError(.badRequest, code: "bad_request", "give \"paths\" to import") }
            try jobs.importPaths(body.paths, mode: body.mode, deleteOriginals: body.deleteOriginals)
            return accepted(jobs)
        }
        api.get("library/failures") { _, _ in try runtime.collection.scanFailures() }
        api.post("library/failures/retry") { _, _ in
            try jobs.retryFailures()
            return accepted(jobs)
        }
        api.delete("library/failures") { _, _ in API.Cleared(cleared: try runtime.collection.clearScanFailures()) }
        api.get("library/missing") { _, _ in try library.missingTracks() }
        api.post("library/cleanup") { request, context in
            let body = try await PlayerRoutes.optionalBody(API.Cleanup.self, request, context)
            return try library.cleanOrphans(dryRun: body?.dryRun ?? false)
        }
        api.post("library/repair") { _, _ in try library.repair() }
        LoudnessRoutes.add(to: api, runtime: runtime, jobs: jobs, player: player)

        api.get("tracks/:id") { _, context in
            let id = try trackID(context)
            guard let track = try runtime.collection.track(id: id) else { throw StoreError.trackNotFound(id) }
            return track
        }
        api.patch("tracks/:id") { request, context in
            let edit = try await request.decode(as: TrackEdit.self, context: context)
            return try library.edit(trackID: try trackID(context), edit)
        }
        api.delete("tracks/:id") { _, context in
            let id = try trackID(context)
            return API.Deleted(trackID: id, deletedFiles: try library.deleteTracks([id]))
        }
        api.post("tracks/:id/relink") { request, context in
            let body = try await request.decode(as: API.Relink.self, context: context)
            return try library.relink(trackID: try trackID(context), to: body.path)
        }

        api.get("artwork/:hash") { request, context in
            guard let hash = context.parameters.get("hash") else { throw APIError(.badRequest, code: "bad_request", "no artwork hash") }
            let size = FormQuery(request).get("size", as: Int.self)
            if let size, !(16...2048).contains(size) { throw APIError(.badRequest, code: "bad_request", "size is 16–2048 pixels") }
            // Making a thumbnail decodes and scales a picture (milliseconds of CPU): not on the event loop, which serves
            // the page's other requests meanwhile (EventLoopServing).
            let (url, mime): (URL, String)
            if let made = try library.madeArtworkFile(hash: hash, size: size) {
                (url, mime) = made
            } else {
                (url, mime) = try await withTaskExecutorPreference(globalConcurrentExecutor) { try library.artworkFile(hash: hash, size: size) }
            }
            let data = try Data(contentsOf: url)
            return Response(status: .ok, headers: [.contentType: mime, .cacheControl: "max-age=31536000, immutable"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    private static func accepted(_ jobs: LibraryJobs) -> EditedResponse<LibraryJobs.Started> {
        EditedResponse(status: .accepted, response: LibraryJobs.Started(job: jobs.job))
    }

    private static func trackID(_ context: BasicRequestContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self) else {
            throw APIError(.badRequest, code: "bad_request", "track id must be a number")
        }
        return id
    }
}

extension LibraryJobs.Job: ResponseEncodable {}
extension ScanFailure: ResponseEncodable {}
extension MissingTrack: ResponseEncodable {}
extension OrphanCleanup: ResponseEncodable {}
extension RepairReport: ResponseEncodable {}
