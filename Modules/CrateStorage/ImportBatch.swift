public import CrateDomain

/// One folder's worth of import results, saved in one transaction by `LibraryStore.save(_:)`.
public struct ImportBatch: Sendable {
    public var entries: [LibraryEntry]
    public var duplicates: [DuplicateFile]
    public var failures: [FailedFile]
    /// Pictures first seen in this folder.
    public var artwork: [ArtworkRecord]

    public init(entries: [LibraryEntry] = [], duplicates: [DuplicateFile] = [], failures: [FailedFile] = [],
                artwork: [ArtworkRecord] = []) {
        self.entries = entries
        self.duplicates = duplicates
        self.failures = failures
        self.artwork = artwork
    }
}

/// A failure with the stamp of the file at the time, so a rescan does not retry an unchanged file.
public struct FailedFile: Sendable {
    public var failure: ScanFailure
    public var stamp: FileStamp?

    public init(failure: ScanFailure, stamp: FileStamp?) {
        self.failure = failure
        self.stamp = stamp
    }
}

/// An existing library file with the same partial content hash as a new one.
public struct LibraryFileMatch: Sendable, Hashable {
    public var trackID: Int64
    public var path: String
    public var duration: Double
    public var mode: ImportMode
    public var missing: MissingReason?
}

/// A library file as the missing-file check sees it.
public struct LibraryFileRow: Sendable, Hashable {
    public var trackID: Int64
    public var path: String
    public var source: String
    public var sourceID: String
    public var mode: ImportMode
    public var missing: MissingReason?
}
