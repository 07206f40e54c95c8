public import CrateDomain

/// The library requests and answers of /api/v1 (Docs/HTTP_API.md): one declaration for the HTTP front end and its
/// clients.
extension API {
    /// `POST library/import`: absolute paths, the mode, and leave to delete originals.
    public struct Import: Codable, Sendable, Hashable {
        public var paths: [String]
        public var mode: ImportMode?
        public var deleteOriginals: Bool?

        public init(paths: [String], mode: ImportMode? = nil, deleteOriginals: Bool? = nil) {
            self.paths = paths
            self.mode = mode
            self.deleteOriginals = deleteOriginals
        }
    }

    /// `POST library/loudness/scan`: absolute paths (none: the whole library), albums too, measure again.
    public struct LoudnessScan: Codable, Sendable, Hashable {
        public var paths: [String]?
        public var album: Bool?
        public var force: Bool?

        public init(paths: [String]? = nil, album: Bool? = nil, force: Bool? = nil) {
            self.paths = paths
            self.album = album
            self.force = force
        }
    }

    /// `POST tracks/{id}/relink`: the file's new path.
    public struct Relink: Codable, Sendable, Hashable {
        public var path: String

        public init(path: String) {
            self.path = path
        }
    }

    /// `POST library/cleanup`: only list the orphaned files.
    public struct Cleanup: Codable, Sendable, Hashable {
        public var dryRun: Bool?

        public init(dryRun: Bool? = nil) {
            self.dryRun = dryRun
        }
    }

    /// `DELETE library/failures`: how many failures were forgotten.
    public struct Cleared: Codable, Sendable, Hashable {
        public var cleared: Int

        public init(cleared: Int) {
            self.cleared = cleared
        }
    }

    /// `DELETE tracks/{id}`: the library files deleted with the track.
    public struct Deleted: Codable, Sendable, Hashable {
        public var trackID: Int64
        public var deletedFiles: [String]

        public init(trackID: Int64, deletedFiles: [String]) {
            self.trackID = trackID
            self.deletedFiles = deletedFiles
        }
    }
}
