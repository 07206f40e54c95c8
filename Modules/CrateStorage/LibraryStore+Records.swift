public import CrateDomain
public import Foundation
import GRDB

/// Import records, rescan roots, stored settings and the lookups imports make.
extension LibraryStore {
    /// Stamps of files in `folder` the library has dealt with. `rescan` also counts files whose track
    /// was deleted (a rescan does not bring them back; an explicit import does) and unchanged failures.
    public func knownStamps(folder: String, rescan: Bool) throws -> [String: FileStamp] {
        try read { db in try Self.knownStamps(db, folder: folder, rescan: rescan) }
    }

    /// A reader of known stamps for a whole scan. A rescan's: one snapshot (one read transaction) answers every
    /// folder, instead of a transaction per folder (stamps written by the scan itself are not needed: they are of
    /// folders already scanned). An import's: a read per folder, because a snapshot held for the whole scan keeps
    /// SQLite from checkpointing the WAL: a 100,000-file import grew it to 377 MB for a 141 MB database. (A rescan
    /// writes little; its scanning thread is its bottleneck, and the snapshot saves it a transaction per folder.)
    public func knownStampsReader(rescan: Bool) throws -> @Sendable (String) -> [String: FileStamp] {
        guard rescan, let pool = pool as? DatabasePool else {
            let reader = pool
            return { folder in (try? reader.read { db in try Self.knownStamps(db, folder: folder, rescan: rescan) }) ?? [:] }
        }
        let snapshot: DatabaseSnapshot
        do { snapshot = try pool.makeSnapshot() } catch { throw StoreError.query(Self.reason(error)) }
        return { folder in (try? snapshot.read { db in try Self.knownStamps(db, folder: folder, rescan: rescan) }) ?? [:] }
    }

    /// Read through cursors by column position: a rescan reads every file's stamp this way, and copying each row and
    /// finding its columns by name was most of the time (issue 30's no-change rescan).
    private static func knownStamps(_ db: Database, folder: String, rescan: Bool) throws -> [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        let records = rescan
            ? "SELECT source_path, size, mtime FROM import_record WHERE folder = ?"
            : "SELECT source_path, size, mtime FROM import_record WHERE folder = ? AND track_id IS NOT NULL"
        var queries = [records]
        if rescan { queries.append("SELECT path, size, mtime FROM scan_failure WHERE folder = ? AND size IS NOT NULL AND mtime IS NOT NULL") }
        for sql in queries {
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [folder])
            while let row = try rows.next() {
                out[row[0]] = FileStamp(size: row[1], modified: row[2])
            }
        }
        return out
    }

    /// Every library file, `limit` at a time after `afterTrackID` (keyset paging keeps memory bounded).
    public func libraryFiles(after afterTrackID: Int64 = 0, limit: Int = 1000) throws -> [LibraryFileRow] {
        try read { db in
            try Array(Row.fetchCursor(db.cachedStatement(sql: """
                SELECT file.track_id, file.path, file.import_mode, track.source, track.source_id, track.missing_reason
                FROM file JOIN track ON track.id = file.track_id
                WHERE file.track_id > ? ORDER BY file.track_id LIMIT ?
                """), arguments: [afterTrackID, limit]).map(Self.fileRow))
        }
    }

    /// Sets the missing flags of many tracks in one transaction (nil reason clears).
    public func setMissing(_ changes: [(trackID: Int64, reason: MissingReason?, detail: String?)]) throws {
        guard !changes.isEmpty else { return }
        try write { db in
            for c in changes {
                try db.execute(sql: "UPDATE track SET missing_reason = ?, missing_detail = ? WHERE id = ?",
                               arguments: [c.reason?.rawValue, c.detail, c.trackID])
            }
        }
    }

    // MARK: rescan roots

    public func addLibraryRoot(_ path: String, at now: Date = Date()) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO library_root (path, added_at) VALUES (?, ?)",
                           arguments: [path, now.timeIntervalSince1970])
        }
    }

    public func libraryRoots() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT path FROM library_root ORDER BY path") }
    }

    // MARK: settings kept in the database

    public func setting(_ key: String) throws -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    // MARK: failures

    /// Forgets failures: all, or those of `paths`.
    @discardableResult
    public func clearScanFailures(paths: [String]? = nil) throws -> Int {
        try write { db in
            guard let paths else {
                try db.execute(sql: "DELETE FROM scan_failure")
                return db.changesCount
            }
            var n = 0
            for p in paths {
                try db.execute(sql: "DELETE FROM scan_failure WHERE path = ?", arguments: [p])
                n += db.changesCount
            }
            return n
        }
    }
}

/// What the library already knows about one file an import is looking at.
public struct ImportLookup: Sendable {
    /// The track whose library file is at this very path (a changed file being re-read).
    public var trackAtPath: Int64?
    /// The track a file found at this path was imported or relinked as before (its copy, for the copy modes).
    public var importedAs: LibraryFileRow?
    /// Library files with the same partial content hash and size.
    public var matches: [LibraryFileMatch]
}

extension LibraryStore {
    /// The lookups an import makes for a folder's files, in one read transaction with cached statements.
    public func importLookups(_ files: [(path: String, contentHash: String?, size: Int64)]) throws -> [ImportLookup] {
        // A folder of unchanged files asks for nothing: no read transaction for it.
        guard !files.isEmpty else { return [] }
        return try read { db in
            let atPath = try db.cachedStatement(sql: "SELECT track_id FROM file WHERE path = ?")
            let imported = try db.cachedStatement(sql: """
                SELECT file.track_id, file.path, file.import_mode, track.source, track.source_id, track.missing_reason
                FROM import_record JOIN file ON file.track_id = import_record.track_id JOIN track ON track.id = file.track_id
                WHERE import_record.source_path = ? AND import_record.outcome IN ('imported', 'relinked')
                """)
            let matching = try db.cachedStatement(sql: """
                SELECT file.track_id, file.path, file.import_mode, track.duration, track.missing_reason
                FROM file JOIN track ON track.id = file.track_id
                WHERE file.content_hash = ? AND file.size = ?
                """)
            return try files.map { file in
                let trackAtPath = try Int64.fetchOne(atPath, arguments: [file.path])
                let importedAs = try Row.fetchOne(imported, arguments: [file.path]).map(Self.fileRow)
                let matches = try file.contentHash.map { hash in
                    try Row.fetchAll(matching, arguments: [hash, file.size]).map(Self.fileMatch)
                } ?? []
                return ImportLookup(trackAtPath: trackAtPath, importedAs: importedAs, matches: matches)
            }
        }
    }

    /// A row of `file.track_id, file.path, file.import_mode, track.source, track.source_id, track.missing_reason`, in
    /// that order (read by position: the rescan's missing check reads every library file).
    static func fileRow(_ row: Row) -> LibraryFileRow {
        LibraryFileRow(trackID: row[0], path: row[1], source: row[3], sourceID: row[4],
                       mode: ImportMode(rawValue: row[2]) ?? .reference,
                       missing: (row[5] as String?).flatMap(MissingReason.init(rawValue:)))
    }

    static func fileMatch(_ row: Row) -> LibraryFileMatch {
        LibraryFileMatch(trackID: row["track_id"], path: row["path"], duration: row["duration"],
                         mode: ImportMode(rawValue: row["import_mode"]) ?? .reference,
                         missing: (row["missing_reason"] as String?).flatMap(MissingReason.init(rawValue:)))
    }
}
