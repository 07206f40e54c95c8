import CrateAPI
import CrateClient
import CrateCore
import CrateDomain
import CrateFeeds
import Foundation

/// The backend while crated runs: each call is one request of the HTTP API (Docs/HTTP_API.md), with the shapes
/// CrateAPI declares for the routes too.
struct RemoteBackend: CrateBackend {
    let client: DaemonClient

    func setFavorite(_ kind: FavoriteKind, id: Int64, _ on: Bool) async throws {
        try await client.perform(on ? "PUT" : "DELETE", "favorites/\(kind.rawValue)/\(id)")
    }

    func createPlaylist(_ name: String) async throws -> Int64 {
        try await client.send("POST", "playlists", API.PlaylistName(name: name), as: API.PlaylistDetail.self).playlist?.id ?? 0
    }

    func renamePlaylist(_ id: Int64, to name: String) async throws {
        try await client.perform("PATCH", "playlists/\(id)", API.PlaylistName(name: name))
    }

    func deletePlaylist(_ id: Int64) async throws { try await client.perform("DELETE", "playlists/\(id)") }

    func addToPlaylist(_ id: Int64, _ add: API.PlaylistAdd) async throws {
        try await client.perform("POST", "playlists/\(id)/tracks", add)
    }

    func removeFromPlaylist(_ id: Int64, _ remove: API.PlaylistRemove) async throws {
        try await client.perform("POST", "playlists/\(id)/remove", remove)
    }

    func movePlaylistEntry(_ id: Int64, _ move: API.Move) async throws {
        try await client.perform("POST", "playlists/\(id)/move", move)
    }

    func importPlaylist(_ request: API.PlaylistImport) async throws -> PlaylistImportReport {
        do {
            return try await client.send("POST", "playlists/import", request, as: PlaylistImportReport.self)
        } catch DaemonClientError.refused(_, "exists", let message) {
            throw FindingError.playlistExists(name: message)
        }
    }

    func addStation(_ request: API.StationAdd) async throws -> Station {
        try await client.send("POST", "stations", request, as: Station.self)
    }

    func removeStation(_ id: Int64) async throws { try await client.perform("DELETE", "stations/\(id)") }

    func addUser(_ request: API.UserAdd) async throws -> Account { try await client.send("POST", "users", request, as: Account.self) }
    func removeUser(_ name: String) async throws { try await client.perform("DELETE", "users/\(Self.segment(name))") }
    func setPassword(_ name: String, _ request: API.UserPassword) async throws {
        try await client.perform("PUT", "users/\(Self.segment(name))/password", request)
    }
    func newAPIKey(_ name: String) async throws -> String {
        try await client.send("POST", "users/\(Self.segment(name))/apikey", as: API.APIKey.self).apiKey
    }

    func run(_ job: LibraryJob, bar: inout ProgressBar) async throws -> JobOutcome {
        // The daemon runs the job (it is the library's writer) and every client hears its progress.
        var started: LibraryJobs.Started
        switch job {
        case .importPaths(let request): started = try await client.send("POST", "library/import", request, as: LibraryJobs.Started.self)
        case .rescan: started = try await client.send("POST", "library/rescan", as: LibraryJobs.Started.self)
        case .retryFailures: started = try await client.send("POST", "library/failures/retry", as: LibraryJobs.Started.self)
        case .loudness(let request):
            started = try await client.send("POST", "library/loudness/scan", request, as: LibraryJobs.Started.self)
        }
        // The daemon reports progress in its status; asking a few times a second is cheap.
        while let running = started.job, running.state == .running {
            if let p = running.progress { bar.show(p) }
            try await Task.sleep(for: .milliseconds(200))
            started = try await client.send("GET", "library/status", as: LibraryJobs.Started.self)
        }
        guard let done = started.job else { throw CLIError("crated did not report the job") }
        if let p = done.progress { bar.show(p, final: true) }
        guard done.state == .done, done.report != nil || done.loudness != nil else {
            throw CLIError("\(done.kind) failed in crated: \(done.error ?? "no reason given")")
        }
        return JobOutcome(report: done.report, loudness: done.loudness)
    }

    func clearFailures() async throws -> Int { try await client.send("DELETE", "library/failures", as: API.Cleared.self).cleared }

    func cleanup(_ request: API.Cleanup) async throws -> OrphanCleanup {
        try await client.send("POST", "library/cleanup", request, as: OrphanCleanup.self)
    }

    func repair() async throws -> RepairReport { try await client.send("POST", "library/repair", as: RepairReport.self) }

    func edit(track: Int64, _ edit: TrackEdit) async throws -> Track {
        try await client.send("PATCH", "tracks/\(track)", edit, as: Track.self)
    }

    func relink(track: Int64, _ request: API.Relink) async throws -> Track {
        try await client.send("POST", "tracks/\(track)/relink", request, as: Track.self)
    }

    func deleteTracks(_ ids: [Int64]) async throws -> [String] {
        var files: [String] = []
        for id in ids { files += try await client.send("DELETE", "tracks/\(id)", as: API.Deleted.self).deletedFiles }
        return files
    }

    func wall(dial: String?, regenerate: Bool, more: Bool, artwork: Int) async throws -> FeedPage {
        if let dial { _ = try await client.send("PUT", "dial", API.Dial(dial: dial), as: API.DialState.self) }
        let q = Self.query([("artwork", String(artwork))])
        if more { return try await client.send("POST", "wall/more\(q)", as: FeedPage.self) }
        if regenerate || dial != nil { return try await client.send("POST", "wall/regenerate\(q)", as: FeedPage.self) }
        return try await client.send("GET", "wall\(q)", as: FeedPage.self)
    }

    func genre(_ genre: String, subcategories: [String], more: Bool, artwork: Int) async throws -> FeedPage {
        let q = Self.query(subcategories.map { ("sub", $0) } + [("artwork", String(artwork))])
        let path = "genres/\(Self.segment(genre))"
        return try await client.send(more ? "POST" : "GET", more ? "\(path)/more\(q)" : "\(path)\(q)", as: FeedPage.self)
    }

    func dial(_ position: String?) async throws -> CrateDial {
        let answer = if let position {
            try await client.send("PUT", "dial", API.Dial(dial: position), as: API.DialState.self)
        } else {
            try await client.send("GET", "dial", as: API.DialState.self)
        }
        return CrateDial(parsing: answer.dial) ?? .default
    }

    func opinion(_ ref: String, _ action: OpinionAction) async throws -> OpinionOutcome {
        let path = switch action {
        case .set(let o), .clear(let o): o == .favorite ? "likes/" : "dislikes/albums/"
        }
        let method = if case .set = action { "PUT" } else { "DELETE" }
        return try await client.send(method, path + Self.segment(ref), as: OpinionOutcome.self)
    }

    func diagnoseFeeds() async throws -> FeedDiagnosis { try await client.send("GET", "feeds/diagnose", as: FeedDiagnosis.self) }

    /// The path segment for an album or genre (`applemusic:123` stays readable; spaces and slashes are escaped).
    static func segment(_ ref: String) -> String {
        ref.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? ref
    }

    static func query(_ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery.map { "?\($0)" } ?? ""
    }
}
