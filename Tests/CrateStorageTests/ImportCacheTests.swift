import CrateDomain
@testable import CrateStorage
import GRDB
import Testing

/// Issue 30: an import writes through a large page cache on the writer's connection, and gives it back when it ends,
/// however it ends, so an idle daemon keeps SQLite's small default.
@Suite struct ImportCacheTests {
    let fx: StoreFixture
    var store: LibraryStore { fx.store }

    init() throws {
        fx = try StoreFixture("crate-import-cache")
    }

    func writer(_ pragma: String) throws -> Int? {
        try store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA \(pragma)") }
    }

    @Test func theCacheIsLargeWhileImportingAndSmallAgainAfterwards() throws {
        let during = try store.withImportCache {
            _ = try fx.save("/m/abbey", [TrackTags(title: "Something", artist: "The Beatles", album: "Abbey Road")])
            return try writer("cache_size")
        }
        #expect(during == -65_536)
        #expect(try writer("cache_size") == -2_000)
        // The WAL is checkpointed every 64 MiB while importing, every 4 MiB (SQLite's 1,000 pages) otherwise, and cut
        // back to 8 MiB when it starts over.
        #expect(try store.withImportCache { try writer("wal_autocheckpoint") } == 16_384)
        #expect(try writer("wal_autocheckpoint") == 1_000)
        #expect(try writer("journal_size_limit") == 8_388_608)

        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) { try store.withImportCache { throw Interrupted() } }
        #expect(try writer("cache_size") == -2_000)
    }

    /// An import's reader of known stamps holds no read transaction between folders: one held for the whole scan (a
    /// snapshot, as a rescan's is) kept SQLite from starting the WAL over, and a 100,000-file import grew it to 377 MB.
    /// A full checkpoint that restarts the WAL succeeds while an import's reader lives, and is refused beside a rescan's.
    @Test func anImportsStampReaderLetsTheWALStartOver() throws {
        _ = try fx.save("/m/abbey", [TrackTags(title: "Something", artist: "The Beatles", album: "Abbey Road")])
        func restartRefused() throws -> Bool {
            _ = try fx.save("/m/abbey", [TrackTags(title: "Something", artist: "The Beatles", album: "Abbey Road"),
                                         TrackTags(title: "Because", artist: "The Beatles", album: "Abbey Road")])
            return try store.pool.writeWithoutTransaction { db in
                // Refused at once rather than after the busy timeout's 5 s.
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = 5000") }
                return try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(RESTART)").map { $0[0] as Int } ?? -1
            } != 0
        }
        let importing = try store.knownStampsReader(rescan: false)
        #expect(!importing("/m/abbey").isEmpty)
        #expect(try !restartRefused(), "an import's stamp reader held the WAL")
        let rescanning = try store.knownStampsReader(rescan: true)
        #expect(!rescanning("/m/abbey").isEmpty)
        #expect(try restartRefused(), "a rescan's snapshot did not hold the WAL: this test no longer sees what it checks")
        withExtendedLifetime((importing, rescanning)) {}
    }
}
