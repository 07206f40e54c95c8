public import CrateDomain
public import Foundation
import GRDB

/// The library database: one SQLite file in WAL mode, shared safely between threads by GRDB's pool.
/// Writes are short transactions (one scanned folder each), so reads never wait long.
public final class LibraryStore: Sendable {
    public let path: String
    /// A pool for the daemon and library commands; one read-only connection (or an empty in-memory library) for
    /// commands that only read.
    let pool: any DatabaseWriter

    public enum Access: Sendable {
        /// Creates the file when needed and applies pending migrations.
        case readWrite
        /// Never writes, never migrates, never creates the file: a missing library reads as an empty one.
        case readOnly
    }

    /// Opens the database at `url` (see `Access`).
    public init(url: URL, access: Access = .readWrite) throws {
        path = url.path
        if access == .readOnly {
            pool = try Self.openReadOnly(url)
            return
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var config = Configuration()
            config.busyMode = .timeout(5)
            // WAL with synchronous=NORMAL: a commit is an append without an fsync (the WAL is synced at
            // checkpoints), so a scan's per-folder transactions do not each wait for the disk. A power cut
            // can lose the last commits but never corrupts the database. The WAL file is cut back to 8 MiB whenever
            // it starts over: SQLite otherwise keeps it at the largest size it ever reached (an import's 71 MB, for
            // as long as crated runs).
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 8388608") }
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            throw StoreError.cannotOpen(path: url.path, reason: Self.reason(error))
        }
        do {
            // GRDB checks which migrations ran, then runs the rest: two processes starting at once (crated and a
            // `crate` command) would both run the same one. A lock file beside the database makes them take turns.
            try Self.withFileLock(path + ".migrate-lock") { try Migrations.migrator.migrate(pool) }
        } catch {
            throw StoreError.migrationFailed(path: url.path, reason: Self.reason(error))
        }
    }

    private static func openReadOnly(_ url: URL) throws -> any DatabaseWriter {
        guard FileManager.default.fileExists(atPath: url.path) else {
            // Nothing imported yet: an empty library in memory answers every read with nothing.
            do {
                let empty = try DatabaseQueue()
                try Migrations.migrator.migrate(empty)
                return empty
            } catch {
                throw StoreError.cannotOpen(path: url.path, reason: reason(error))
            }
        }
        let queue: DatabaseQueue
        do {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(5)
            queue = try DatabaseQueue(path: url.path, configuration: config)
        } catch {
            throw StoreError.cannotOpen(path: url.path, reason: reason(error))
        }
        let current = (try? queue.read { try Migrations.migrator.hasCompletedMigrations($0) }) ?? false
        guard current else { throw StoreError.needsUpgrade(path: url.path) }
        return queue
    }

    /// Runs `body` holding an exclusive `flock` on `lockPath` (released when the file is closed, also on a crash).
    private static func withFileLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return try body() }   // a read-only folder: no second writer can exist either
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        return try body()
    }

    /// SQLite's `data_version` seen from the writer's connection: it changes when another connection (another
    /// process) commits, never for this store's own writes.
    public func externalDataVersion() throws -> Int {
        do { return try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 } } catch {
            throw StoreError.query(Self.reason(error))
        }
    }

    /// Runs a read, turning database errors into `StoreError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch let error as StoreError { throw error } catch {
            throw StoreError.query(Self.reason(error))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch let error as StoreError { throw error } catch let error as StationError { throw error } catch {
            throw StoreError.query(Self.reason(error))
        }
    }

    static func reason(_ error: any Error) -> String {
        if let db = error as? DatabaseError { return db.message ?? db.description }
        return String(describing: error)
    }

    /// Row counts, for `crate` summaries and the health endpoint.
    public func counts() throws -> LibraryCounts {
        try read { db in
            LibraryCounts(
                albums: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album WHERE \(Self.notStreams)") ?? 0,
                tracks: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM track JOIN album ON album.id = track.album_id WHERE \(Self.notStreams)") ?? 0,
                artists: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM artist WHERE NOT \(Self.hiddenOnlyArtist)") ?? 0,
                scanFailures: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan_failure") ?? 0)
        }
    }
}

