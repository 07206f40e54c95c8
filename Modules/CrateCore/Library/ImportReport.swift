public import CrateDomain
import Foundation

/// Where an import or rescan stands, after each folder.
public struct ImportProgress: Sendable, Hashable, Codable {
    /// Audio files dealt with so far, of `total` (from a listing made before the scan).
    public var done: Int
    public var total: Int
    public var imported: Int
    public var duplicates: Int
    public var failures: Int
    public var unchanged: Int
    public var folder: String
    public var elapsed: Double
}

/// What one import or rescan did. Lists are capped; the counts are complete.
public struct ImportReport: Sendable, Hashable, Codable {
    public static let listCap = 500

    public var roots: [String]
    public var mode: ImportMode
    public var imported = 0
    public var relinked = 0
    public var updated = 0
    public var unchanged = 0
    public var folders = 0
    /// Files without an audio suffix.
    public var nonAudio = 0
    public var duplicateCount = 0
    public var duplicates: [DuplicateFile] = []
    public var failureCount = 0
    public var failures: [ScanFailure] = []
    /// Originals deleted after a verified copy (copy_then_delete with permission).
    public var originalsDeleted = 0
    /// Originals kept because deleting them was not permitted (copy_then_delete without permission).
    public var originalsKept = 0
    /// The missing-file check a rescan ends with.
    public var missing: MissingCheck?
    public var seconds = 0.0

    public init(roots: [String], mode: ImportMode) {
        self.roots = roots
        self.mode = mode
    }

    mutating func add(duplicate: DuplicateFile) {
        duplicateCount += 1
        if duplicates.count < Self.listCap { duplicates.append(duplicate) }
    }

    mutating func add(failure: ScanFailure) {
        failureCount += 1
        if failures.count < Self.listCap { failures.append(failure) }
    }
}

/// What a pass over every library file found.
public struct MissingCheck: Sendable, Hashable, Codable {
    public var checked = 0
    /// Tracks flagged missing by this pass.
    public var newlyMissing = 0
    /// Tracks whose file is back.
    public var found = 0
    /// Missing tracks after the pass, by reason.
    public var missing: [String: Int] = [:]

    public init() {}
}
