import CrateAPI
import CrateCore
import CrateDomain
import CrateFeeds
import Foundation

/// The backend without a daemon: the same Core services the daemon's routes call, on the library this command opened
/// (holding the library lock when it writes).
struct LocalBackend: CrateBackend {
    let runtime: CrateRuntime

    private var collection: MusicCollection { runtime.collection }

    func setFavorite(_ kind: FavoriteKind, id: Int64, _ on: Bool) async throws {
        if on { try collection.setOpinion(kind, id: id, .favorite) } else { try collection.clearOpinion(kind, id: id, only: .favorite) }
    }

    func createPlaylist(_ name: String) async throws -> Int64 { try collection.createPlaylist(name: name).id }
    func renamePlaylist(_ id: Int64, to name: String) async throws { try collection.renamePlaylist(id: id, to: name) }
    func deletePlaylist(_ id: Int64) async throws { try collection.deletePlaylist(id: id) }

    func addToPlaylist(_ id: Int64, _ add: API.PlaylistAdd) async throws {
        try collection.addToPlaylist(id: id, trackIDs: try collection.trackIDs(add.trackIDs, albumID: add.albumID), at: add.index)
    }

    func removeFromPlaylist(_ id: Int64, _ remove: API.PlaylistRemove) async throws {
        try collection.removeFromPlaylist(id: id, at: remove.positions)
    }

    func movePlaylistEntry(_ id: Int64, _ move: API.Move) async throws {
        try collection.movePlaylistEntry(id: id, from: move.from, to: move.to)
    }

    func importPlaylist(_ request: API.PlaylistImport) async throws -> PlaylistImportReport {
        try runtime.playlistFiles.importM3U(URL(fileURLWithPath: request.path), name: request.name, replace: request.replace ?? false)
    }

    func addStation(_ request: API.StationAdd) async throws -> Station {
        try collection.addStation(name: request.name, url: request.url, artworkURL: request.artworkURL)
    }

    func removeStation(_ id: Int64) async throws { try collection.removeStation(id: id) }

    func addUser(_ request: API.UserAdd) async throws -> Account {
        try runtime.accounts.add(name: request.name, password: request.password, admin: request.admin, owner: request.owner,
                                 jukebox: request.jukebox)
    }
    func removeUser(_ name: String) async throws { try runtime.accounts.remove(name: name) }
    func setPassword(_ name: String, _ request: API.UserPassword) async throws {
        try runtime.accounts.setPassword(name: name, password: request.password)
    }
    func newAPIKey(_ name: String) async throws -> String { try runtime.accounts.newAPIKey(name: name) }

    func run(_ job: LibraryJob, bar: inout ProgressBar) async throws -> JobOutcome {
        let library = runtime.library
        var shown = bar, last: ImportProgress?
        let watch: ((ImportProgress) -> Void)? = shown.style == .none ? nil : { p in last = p; shown.show(p) }
        // Warnings logged meanwhile are kept: on a terminal they scrolled past the progress bar.
        CrateConsole.shared.startCapturing()
        let outcome = Result { () throws -> JobOutcome in
            switch job {
            case .importPaths(let request):
                return JobOutcome(report: try library.importPaths(request.paths, mode: request.mode,
                                                                  deleteOriginals: request.deleteOriginals, progress: watch))
            case .rescan: return JobOutcome(report: try library.rescan(progress: watch))
            case .retryFailures: return JobOutcome(report: try library.retryFailures(progress: watch))
            case .loudness(let request):
                let scan = LoudnessScanRequest(paths: request.paths ?? [], albums: request.album ?? false, force: request.force ?? false)
                return JobOutcome(loudness: try library.loudness.scan(scan, progress: watch))
            }
        }
        let warnings = CrateConsole.shared.stopCapturing()
        if let last { shown.show(last, final: true) } else { CrateConsole.shared.endStatus() }
        bar = shown
        var done = try outcome.get()
        done.warnings = warnings
        return done
    }

    func clearFailures() async throws -> Int { try collection.clearScanFailures() }
    func cleanup(_ request: API.Cleanup) async throws -> OrphanCleanup { try runtime.library.cleanOrphans(dryRun: request.dryRun ?? false) }
    func repair() async throws -> RepairReport { try runtime.library.repair() }
    func edit(track: Int64, _ edit: TrackEdit) async throws -> Track { try runtime.library.edit(trackID: track, edit) }
    func relink(track: Int64, _ request: API.Relink) async throws -> Track { try runtime.library.relink(trackID: track, to: request.path) }
    func deleteTracks(_ ids: [Int64]) async throws -> [String] { try runtime.library.deleteTracks(ids) }

    func wall(dial: String?, regenerate: Bool, more: Bool, artwork: Int) async throws -> FeedPage {
        if more { throw CLIError("--more continues the daemon's wall: start crated (or `make run`) first") }
        let feeds = runtime.feeds()
        if let dial { try await feeds.setDial(dial, regenerate: false) }
        return await feeds.regenerateWall(reason: "crate wall", artworkSize: artwork)
    }

    func genre(_ genre: String, subcategories: [String], more: Bool, artwork: Int) async throws -> FeedPage {
        if more { throw CLIError("--more continues the daemon's genre feed: start crated (or `make run`) first") }
        return try await runtime.feeds().genre(genre, subcategories: subcategories, artworkSize: artwork)
    }

    func dial(_ position: String?) async throws -> CrateDial {
        let feeds = runtime.feeds()
        if let position { return try await feeds.setDial(position, regenerate: false) }
        return await feeds.dial()
    }

    func opinion(_ ref: String, _ action: OpinionAction) async throws -> OpinionOutcome {
        let feeds = runtime.feeds()
        switch action {
        case .set(.favorite): return try await feeds.like(ref)
        case .set(.dislike): return try await feeds.dislike(ref)
        case .clear(let o): return try await feeds.clearOpinion(ref, only: o)
        }
    }

    func diagnoseFeeds() async throws -> FeedDiagnosis { await runtime.feeds().diagnose() }
}
