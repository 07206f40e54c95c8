public import Foundation

/// Where a playable track can be read from once its source has resolved it.
public enum PlayableLocation: Sendable, Hashable {
    case file(URL)
    case stream(URL)
}

/// A source of music, keyed by the URI schemes it claims (`file`, `http`, `applemusic`).
public protocol SourcePlugin: Sendable {
    var name: String { get }
    var schemes: [String] { get }
    var status: PluginStatus { get }
    /// Resolves a track of this source to something a decoder can open.
    func locate(_ ref: TrackRef) throws -> PlayableLocation
}

/// A source that brings files into the library by scanning folders.
public protocol ScanningSource: SourcePlugin {
    /// Walks `root`, probing each file with `decoders`, and hands over one batch per folder
    /// so memory stays bounded. Unreadable files become failures; the walk goes on.
    /// Files `options.known` reports unchanged (same size and modification time) are counted, not opened.
    func scan(_ root: URL, decoders: DecoderRegistry, options: ScanOptions,
              onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary
    /// How many files under `root` a scan would look at (audio suffixes, hidden ones skipped),
    /// from directory listings only, for progress totals.
    func census(_ root: URL, decoders: DecoderRegistry) -> Int
}

/// A file's size and modification time: equal stamps mean a rescan need not open the file.
public struct FileStamp: Sendable, Hashable, Codable {
    public var size: Int64
    /// Seconds since 1970, with the file system's sub-second part.
    public var modified: Double

    public init(size: Int64, modified: Double) {
        self.size = size
        self.modified = modified
    }

    /// Same size, and modification times within a millisecond (the stamps went through a REAL column).
    public func matches(_ other: FileStamp) -> Bool {
        size == other.size && abs(modified - other.modified) < 0.001
    }
}

/// What the library tells a scan.
public struct ScanOptions: Sendable {
    /// The stamps of the files the library already holds in one folder (absolute folder path -> file path -> stamp).
    /// Asked once per folder, so memory stays bounded.
    public var known: @Sendable (String) -> [String: FileStamp]
    /// Keeps an embedded picture (once per content) and returns its artwork hash; nil when it was not kept.
    /// Called while probing so a batch never holds picture bytes.
    public var keepPicture: @Sendable (EmbeddedPicture) -> String?

    public init(known: @escaping @Sendable (String) -> [String: FileStamp] = { _ in [:] },
                keepPicture: @escaping @Sendable (EmbeddedPicture) -> String? = { _ in nil }) {
        self.known = known
        self.keepPicture = keepPicture
    }
}

/// A file the scanner could read, with album grouping already resolved.
public struct ScannedTrack: Sendable, Hashable {
    public var ref: TrackRef
    public var path: String
    public var size: Int64
    public var modified: Date
    public var tags: TrackTags
    /// The embedded cover, as kept by `ScanOptions.keepPicture`.
    public var artworkHash: String?
    public var info: StreamInfo
    /// Title and artist for display, with file-name and "Unknown Artist" fallbacks applied.
    public var title: String
    public var artist: String
    /// The album this track belongs to, after the grouping rules (see `AlbumGrouping`).
    public var album: AlbumKey

    public init(ref: TrackRef, path: String, size: Int64, modified: Date, tags: TrackTags, info: StreamInfo,
                title: String, artist: String, album: AlbumKey, artworkHash: String? = nil) {
        self.ref = ref
        self.path = path
        self.size = size
        self.modified = modified
        self.tags = tags
        self.info = info
        self.title = title
        self.artist = artist
        self.album = album
        self.artworkHash = artworkHash
    }

    public var stamp: FileStamp { FileStamp(size: size, modified: modified.timeIntervalSince1970) }
}

/// A file that could not be imported, and why.
public struct ScanFailure: Sendable, Hashable, Codable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

public struct ScanBatch: Sendable {
    public var folder: String
    public var tracks: [ScannedTrack]
    public var failures: [ScanFailure]
    /// Files skipped because the library holds them unchanged.
    public var unchanged: Int
    /// The folder's cover image (`cover.*`, `folder.*`, `front.*`; jpg/jpeg/png), for tracks without an embedded one.
    public var folderImage: String?

    public init(folder: String, tracks: [ScannedTrack], failures: [ScanFailure], unchanged: Int = 0,
                folderImage: String? = nil) {
        self.folder = folder
        self.tracks = tracks
        self.failures = failures
        self.unchanged = unchanged
        self.folderImage = folderImage
    }

    /// Files this batch accounts for, for progress.
    public var fileCount: Int { tracks.count + failures.count + unchanged }
}

public struct ScanSummary: Sendable, Hashable, Codable {
    public var folders = 0
    public var filesSeen = 0
    public var tracksRead = 0
    public var failures = 0
    /// Files without an audio suffix.
    public var skipped = 0
    /// Audio files the library already held unchanged (not opened).
    public var unchanged = 0

    public init() {}
}
