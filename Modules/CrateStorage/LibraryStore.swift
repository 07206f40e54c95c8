public import CrateDomain
public import Foundation
public import GRDB

/// The library database: one SQLite file in WAL mode, shared safely between threads by GRDB's pool.
/// Writes are short transactions (one scanned folder each), so reads never wait long.
public final class LibraryStore: Sendable {
    public let path: String
    let pool: DatabasePool

    /// Opens (creating if needed) the database at `url` and applies pending migrations.
    public init(url: URL) throws {
        path = url.path
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var config = Configuration()
            config.busyMode = .timeout(5)
            // WAL with synchronous=NORMAL: a commit is an append without an fsync (the WAL is synced at
            // checkpoints), so a scan's per-folder transactions do not each wait for the disk. A power cut
            // can lose the last commits but never corrupts the database.
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
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

    /// Runs `body` holding an exclusive `flock` on `lockPath` (released when the file is closed, also on a crash).
    private static func withFileLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return try body() }   // a read-only folder: no second writer can exist either
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        return try body()
    }

    /// Runs a read, turning database errors into `StoreError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch let error as StoreError { throw error } catch {
            throw StoreError.query(Self.reason(error))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch let error as StoreError { throw error } catch {
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
                albums: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album") ?? 0,
                tracks: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM track") ?? 0,
                artists: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM artist") ?? 0,
                scanFailures: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan_failure") ?? 0)
        }
    }
}

