import Foundation

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
    func scan(_ root: URL, decoders: DecoderRegistry, onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary
}

/// A file the scanner could read, with album grouping already resolved.
public struct ScannedTrack: Sendable, Hashable {
    public var ref: TrackRef
    public var path: String
    public var size: Int64
    public var modified: Date
    public var tags: TrackTags
    public var info: StreamInfo
    /// Title and artist for display, with file-name and "Unknown Artist" fallbacks applied.
    public var title: String
    public var artist: String
    /// The album this track belongs to, after the grouping rules (see `AlbumGrouping`).
    public var album: AlbumKey

    public init(ref: TrackRef, path: String, size: Int64, modified: Date, tags: TrackTags, info: StreamInfo,
                title: String, artist: String, album: AlbumKey) {
        self.ref = ref
        self.path = path
        self.size = size
        self.modified = modified
        self.tags = tags
        self.info = info
        self.title = title
        self.artist = artist
        self.album = album
    }
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

    public init(folder: String, tracks: [ScannedTrack], failures: [ScanFailure]) {
        self.folder = folder
        self.tracks = tracks
        self.failures = failures
    }
}

public struct ScanSummary: Sendable, Hashable, Codable {
    public var folders = 0
    public var filesSeen = 0
    public var tracksRead = 0
    public var failures = 0
    public var skipped = 0

    public init() {}
}
