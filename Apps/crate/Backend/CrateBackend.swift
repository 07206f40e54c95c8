import CrateAPI
import CrateCore
import CrateDomain
import CrateFeeds

/// Where a command's work goes: crated when it runs (the library's one writer, so every client hears the change as an
/// event), else the library itself. `GlobalOptions.backend(_:)` chooses once per command; a command then calls the
/// backend and never asks which one it has. `RemoteBackend` sends the API's shapes (CrateAPI) over HTTP;
/// `LocalBackend` calls the same Core services the daemon's routes call.
protocol CrateBackend: Sendable {
    // Favorites: a favorite's removal leaves a dislike alone.
    func setFavorite(_ kind: FavoriteKind, id: Int64, _ on: Bool) async throws

    // Playlists.
    func createPlaylist(_ name: String) async throws -> Int64
    func renamePlaylist(_ id: Int64, to name: String) async throws
    func deletePlaylist(_ id: Int64) async throws
    func addToPlaylist(_ id: Int64, _ add: API.PlaylistAdd) async throws
    func removeFromPlaylist(_ id: Int64, _ remove: API.PlaylistRemove) async throws
    func movePlaylistEntry(_ id: Int64, _ move: API.Move) async throws
    func importPlaylist(_ request: API.PlaylistImport) async throws -> PlaylistImportReport

    // Stations.
    func addStation(_ request: API.StationAdd) async throws -> Station
    func removeStation(_ id: Int64) async throws

    // Accounts (for the Subsonic API).
    func addUser(_ request: API.UserAdd) async throws -> Account
    func removeUser(_ name: String) async throws
    func setPassword(_ name: String, _ request: API.UserPassword) async throws
    /// A new API key for `name` (the old one stops working).
    func newAPIKey(_ name: String) async throws -> String

    // The library: jobs are followed to their end, their progress on `bar`.
    func run(_ job: LibraryJob, bar: inout ProgressBar) async throws -> JobOutcome
    func clearFailures() async throws -> Int
    func cleanup(_ request: API.Cleanup) async throws -> OrphanCleanup
    func repair() async throws -> RepairReport
    func edit(track: Int64, _ edit: TrackEdit) async throws -> Track
    func relink(track: Int64, _ request: API.Relink) async throws -> Track
    /// The library files deleted with the tracks.
    func deleteTracks(_ ids: [Int64]) async throws -> [String]

    // Feeds: the daemon keeps its wall and continues it (`more`); here a wall is composed once.
    func wall(dial: String?, regenerate: Bool, more: Bool, artwork: Int) async throws -> FeedPage
    func genre(_ genre: String, subcategories: [String], more: Bool, artwork: Int) async throws -> FeedPage
    /// Sets the dial when `position` is given; answers the dial now.
    func dial(_ position: String?) async throws -> CrateDial
    func opinion(_ ref: String, _ action: OpinionAction) async throws -> OpinionOutcome
    func diagnoseFeeds() async throws -> FeedDiagnosis
}

/// A library job as the CLI starts it.
enum LibraryJob: Sendable {
    case importPaths(API.Import)
    case rescan
    case retryFailures
    case loudness(API.LoudnessScan)
}

/// How a job ended: an import report (import, rescan, retry) or a loudness report, and the warnings a local run logged
/// that its report does not list.
struct JobOutcome: Sendable {
    var report: ImportReport?
    var loudness: LoudnessScanReport?
    var warnings: [String] = []
}

/// Like, dislike, or take one back.
enum OpinionAction: Sendable {
    case set(Opinion), clear(Opinion)
}
