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

/// A source that brings files into the library. It lists folders — each file's stamp and the ref it will have,
/// what cannot be read and why, the folder's cover image — and opens files (`locate`); Core probes the files
/// with the decoders, groups albums and imports (`FolderScan`), so any listing source can import.
public protocol ListingSource: SourcePlugin {
    /// Walks `root` one folder at a time (memory stays bounded), handing each folder's contents to `visit`.
    /// Files whose suffix is not in `suffixes` (those some decoder claims) are counted as skipped. A root that is a
    /// single file is a folder of one, whatever its suffix: the user named it.
    func list(_ root: URL, suffixes: Set<String>, visit: (FolderContents) throws -> Void) throws
    /// How many files under `root` a scan would look at (audio suffixes, hidden ones skipped), from directory
    /// listings only, for progress totals.
    func census(_ root: URL, suffixes: Set<String>) -> Int
}

/// One folder as a listing source sees it, before any file is opened.
public struct FolderContents: Sendable {
    public var folder: String
    /// Regular files with an audio suffix, in listing order.
    public var files: [ListedFile]
    /// Entries that cannot be read (a broken link, a pipe, a name that is not UTF-8), with why.
    public var failures: [ScanFailure]
    /// Every file entry seen, and those left out for their suffix.
    public var filesSeen: Int
    public var skipped: Int
    /// The folder's cover image (`cover.*`, `folder.*`, `front.*`), for tracks without an embedded one.
    public var folderImage: String?
    /// False for a root that is a single file: it is not counted as a folder.
    public var isFolder: Bool
    /// The folder's path through a symbolic link, when it was reached by one (`folder` is its real path): a library
    /// imported before may know its files by that path.
    public var alias: String?
    /// The paths of the folder's `.lrc` files, when the source listed them (nil: unknown, so the scanner looks for
    /// each audio file's sidecar itself). Saves a look-up per file in the common folder without lyrics.
    public var lyricsFiles: Set<String>?

    public init(folder: String, files: [ListedFile], failures: [ScanFailure], filesSeen: Int, skipped: Int,
                folderImage: String?, isFolder: Bool, alias: String? = nil, lyricsFiles: Set<String>? = nil) {
        self.alias = alias
        self.lyricsFiles = lyricsFiles
        self.folder = folder
        self.files = files
        self.failures = failures
        self.filesSeen = filesSeen
        self.skipped = skipped
        self.folderImage = folderImage
        self.isFolder = isFolder
    }
}

/// A file a listing source found: where it is, the track ref it will have, and its stamp.
public struct ListedFile: Sendable, Hashable {
    public var path: String
    public var ref: TrackRef
    public var stamp: FileStamp

    public init(path: String, ref: TrackRef, stamp: FileStamp) {
        self.path = path
        self.ref = ref
        self.stamp = stamp
    }
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
    /// Whether each probed file's partial content hash (`ScannedTrack.contentHash`) is made while probing, on the
    /// probing threads, rather than later by the one thread that writes the library (issue 30: it was 12 % of that
    /// thread's time in an import).
    public var hashContent: Bool

    public init(known: @escaping @Sendable (String) -> [String: FileStamp] = { _ in [:] },
                keepPicture: @escaping @Sendable (EmbeddedPicture) -> String? = { _ in nil }, hashContent: Bool = false) {
        self.known = known
        self.keepPicture = keepPicture
        self.hashContent = hashContent
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
    /// The partial content hash that finds duplicates, when the scan made it (`ScanOptions.hashContent`).
    public var contentHash: String?
    public var info: StreamInfo
    /// Title and artist for display, with file-name and "Unknown Artist" fallbacks applied.
    public var title: String
    public var artist: String
    /// The album this track belongs to, after the grouping rules (see `AlbumGrouping`).
    public var album: AlbumKey

    public init(ref: TrackRef, path: String, size: Int64, modified: Date, tags: TrackTags, info: StreamInfo,
                title: String, artist: String, album: AlbumKey, artworkHash: String? = nil, contentHash: String? = nil) {
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
        self.contentHash = contentHash
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
