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

    func writerCache() throws -> Int? {
        try store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA cache_size") }
    }

    @Test func theCacheIsLargeWhileImportingAndSmallAgainAfterwards() throws {
        let during = try store.withImportCache {
            _ = try fx.save("/m/abbey", [TrackTags(title: "Something", artist: "The Beatles", album: "Abbey Road")])
            return try writerCache()
        }
        #expect(during == -65_536)
        #expect(try writerCache() == -2_000)

        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) { try store.withImportCache { throw Interrupted() } }
        #expect(try writerCache() == -2_000)
    }
}
