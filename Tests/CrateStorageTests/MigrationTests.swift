@testable import CrateStorage
import CrateTestSupport
import Foundation
import GRDB
import Testing

/// The schema a library ends with does not depend on how many runs of the migrations it took: a new library builds
/// its search index once (v8, v15 and v16 skip rebuilding what v4 of the same run built), an old one has it rebuilt.
@Suite struct MigrationTests {
    let dir: URL

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-migrations")
    }

    /// Every table, index, trigger and view: type, name and SQL (root pages differ between files).
    func schema(_ db: DatabaseQueue) throws -> [String] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
                .map { "\($0[0] as String) \($0[1] as String) \($0[2] as String): \(($0[3] as String?) ?? "")" }
        }
    }

    @Test(arguments: ["v3: import modes, content hashes, import records, artwork, overrides, settings",
                      "v7: artwork colours",
                      "v14: playlists and play queues of the household's accounts",
                      "v15: an import batch indexes its new rows once, at its end"])
    func oneRunAndTwoRunsMakeTheSameSchema(stoppingAt migration: String) throws {
        let once = try DatabaseQueue(path: dir.appendingPathComponent("once.sqlite").path)
        try Migrations.migrator.migrate(once)
        let twice = try DatabaseQueue(path: dir.appendingPathComponent("twice.sqlite").path)
        try Migrations.migrator.migrate(twice, upTo: migration)
        try twice.write { db in
            try db.execute(sql: "INSERT INTO artist (id, name) VALUES (1, 'Søren Trio'), (2, 'R.E.M.')")
        }
        try Migrations.migrator.migrate(twice)

        let expected = try schema(once)
        #expect(expected.contains { $0.hasPrefix("table track_fts ") })
        #expect(expected.contains { $0.hasPrefix("trigger track_fts_insert ") && $0.contains("search_index_paused") })
        #expect(expected.contains { $0.hasPrefix("view track_fts_row ") })
        #expect(try schema(twice) == expected)
        // The index of the library migrated in two runs holds what it had before the second.
        let names = try twice.read { db in try String.fetchAll(db, sql: "SELECT name FROM artist_fts ORDER BY rowid") }
        #expect(names == ["Soren Trio", "R.E.M. REM"])
        try once.close()
        try twice.close()
        try? FileManager.default.removeItem(at: dir)
    }
}
