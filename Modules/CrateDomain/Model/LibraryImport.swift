import Foundation

/// A file the importer adds to the library: what the scanner read, and where the library now keeps it.
public struct LibraryEntry: Sendable {
    /// Path, ref, size and mtime are the library's file: the copy in the copy modes.
    public var track: ScannedTrack
    public var mode: ImportMode
    /// Where the file was found.
    public var originalPath: String
    public var originalStamp: FileStamp
    public var contentHash: String?
    /// Set when this file replaces the missing file of an existing track (a relink), which keeps its id,
    /// queue places, history and overrides.
    public var relinkTrackID: Int64?

    public init(track: ScannedTrack, mode: ImportMode, originalPath: String, originalStamp: FileStamp,
                contentHash: String?, relinkTrackID: Int64? = nil) {
        self.track = track
        self.mode = mode
        self.originalPath = originalPath
        self.originalStamp = originalStamp
        self.contentHash = contentHash
        self.relinkTrackID = relinkTrackID
    }
}

/// A file found to be a copy of one already in the library: it is skipped, and its original is kept.
public struct DuplicateFile: Sendable, Hashable, Codable {
    public var path: String
    public var stamp: FileStamp
    /// Nil when the original is another file of the same import batch.
    public var existingTrackID: Int64?
    public var existingPath: String

    public init(path: String, stamp: FileStamp, existingTrackID: Int64?, existingPath: String) {
        self.path = path
        self.stamp = stamp
        self.existingTrackID = existingTrackID
        self.existingPath = existingPath
    }
}

/// A picture the library keeps once per content hash.
public struct ArtworkRecord: Sendable, Hashable, Codable {
    public var hash: String
    public var mimeType: String
    public var bytes: Int
    /// "embedded" or "folder".
    public var origin: String
    /// The two colours of the player's gradient (ADR-121), `#rrggbb`, when they could be computed.
    public var colors: [String]?

    public init(hash: String, mimeType: String, bytes: Int, origin: String, colors: [String]? = nil) {
        self.hash = hash
        self.mimeType = mimeType
        self.bytes = bytes
        self.origin = origin
        self.colors = colors
    }
}

/// The folder part of an absolute path, as scans and import records key it ("/m/a/b.flac" -> "/m/a").
public func folderOf(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return String(path[..<slash])
}

/// A library entry whose file cannot be played, and why.
public struct MissingTrack: Sendable, Hashable, Codable {
    public var track: Track
    public var reason: MissingReason
    public var detail: String?

    public init(track: Track, reason: MissingReason, detail: String?) {
        self.track = track
        self.reason = reason
        self.detail = detail
    }
}
