import CrateCore
import CrateDomain
import CrateStorage
import CrateTestSupport
import Foundation
import GRDB
import Testing

@Suite struct MaintenanceTests {
    @Test func failuresAreListedRetriedAndCleared() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let broken = album.appendingPathComponent("03.flac")
        try Data("not a flac".utf8).write(to: broken)
        try Data().write(to: album.appendingPathComponent("04.mp3"))
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path])
        #expect(report.imported == 2 && report.failureCount == 2)
        let failures = try runtime.store.scanFailures()
        #expect(Set(failures.map(\.path)) == [broken.path, album.appendingPathComponent("04.mp3").path])
        #expect(failures.allSatisfy { !$0.reason.isEmpty })
        // The file is fixed: a retry imports it and it leaves the list; the other stays.
        try Fixture.encode(.flac, to: broken, frames: 8000, tags: ["title": "Record 3", "artist": "Band", "album": "Record", "track": "3"])
        let retry = try runtime.library.retryFailures()
        #expect(retry.imported == 1 && retry.failureCount == 1)
        #expect(try runtime.store.scanFailures().map(\.path) == [album.appendingPathComponent("04.mp3").path])
        #expect(try runtime.store.clearScanFailures() == 1)
        #expect(try runtime.store.scanFailures().isEmpty)
    }

    @Test func progressIsReportedPerFolderWithATotal() throws {
        let f = try LibraryFixture()
        try f.album("A", "One")
        try f.album("B", "Two", tone: 700)
        var seen: [ImportProgress] = []
        _ = try f.runtime().library.importPaths([f.music.path]) { seen.append($0) }
        // One report per folder (the total, counted beside the scan, is 0 until known), then the final one.
        #expect(seen.count == 3 && seen.last?.done == 4 && seen.last?.total == 4)
        #expect(seen.allSatisfy { $0.total == 0 || $0.total == 4 })
        #expect(seen.map(\.imported) == [2, 4, 4])
    }

    @Test func orphanedLibraryFilesAreCleanedUp() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        let stray = f.settings.libraryFolder.appendingPathComponent("Stray/old.flac")
        try FileManager.default.createDirectory(at: stray.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: stray)
        let partial = f.settings.libraryFolder.appendingPathComponent("Band/Record/.crate-partial-123")
        try Data("half".utf8).write(to: partial)
        let dry = try runtime.library.cleanOrphans(dryRun: true)
        #expect(dry.count == 2 && !dry.deleted && FileManager.default.fileExists(atPath: stray.path))
        let done = try runtime.library.cleanOrphans(dryRun: false)
        #expect(done.count == 2 && done.deleted)
        #expect(f.files(under: f.settings.libraryFolder) == ["Band/Record/01 Record 1.flac", "Band/Record/02 Record 2.flac"])
    }

    @Test func repairRemovesRowsThatPointAtNothing() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        _ = try runtime.store.replaceQueue(with: [1, 2])
        try runtime.store.recordPlay(trackID: 1)
        try runtime.store.saveTrackPosition(trackID: 2, seconds: 3)
        // Rows left behind as if by an older version or a crash: written with foreign keys off.
        var config = Configuration()
        config.foreignKeysEnabled = false
        let raw = try DatabaseQueue(path: runtime.store.path, configuration: config)
        try raw.write { db in
            try db.execute(sql: "DELETE FROM track WHERE id = 2")
            try db.execute(sql: "INSERT INTO play_history (track_id, played_at) VALUES (99, 0)")
            try db.execute(sql: "INSERT INTO artwork (hash, mime, bytes, origin, created_at) VALUES ('\(String(repeating: "a", count: 64))', 'image/png', 1, 'embedded', 0)")
        }
        let report = try runtime.library.repair()
        #expect(report.removed["queue entries"] == 1)
        #expect(report.removed["history entries"] == 1)
        #expect(report.removed["playback positions"] == 1)
        #expect(report.removed["file rows"] == 1)
        #expect(report.artworkFilesMissing == 1)   // a row whose file is gone
        let again = try runtime.library.repair()
        #expect(again.removed.isEmpty && again.artworkFilesMissing == 0, "\(again)")   // idempotent
        let d = try runtime.library.diagnostics()
        #expect(d.tracks == 1 && d.queueEntries == 1 && d.historyEntries == 1 && d.playbackPositions == 0)
    }

    @Test func diagnosticsAndStorageSizesCountEverything() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        try Data("x".utf8).write(to: f.music.appendingPathComponent("Band/Record/05.flac"))
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        try FileManager.default.removeItem(at: URL(fileURLWithPath: try #require(try runtime.store.track(id: 1)?.path)))
        _ = try runtime.library.checkMissing()
        let d = try runtime.library.diagnostics()
        #expect(d.tracks == 2 && d.albums == 1 && d.artists == 1 && d.importFailures == 1 && d.importRecords == 2)
        #expect(d.missing == ["not_found": 1, "permission": 0, "invalid_uri": 0])
        #expect(d.filesByMode == ["copy": 2])
        let sizes = runtime.library.storageSizes()
        #expect(sizes.databaseBytes > 0 && sizes.libraryBytes > 0 && sizes.libraryFiles == 1)
    }

    /// Every hard input next to good files: each a failure with a reason, the scan finishes, the good files import.
    @Test func hardInputsAreRecordedAndTheScanGoesOn() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        try Data().write(to: album.appendingPathComponent("zero.flac"))
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: album.appendingPathComponent("random.mp3"))
        let good = try Data(contentsOf: album.appendingPathComponent("01.flac"))
        try good.prefix(good.count / 3).write(to: album.appendingPathComponent("truncated.flac"))
        try FileManager.default.createSymbolicLink(atPath: album.appendingPathComponent("broken.flac").path, withDestinationPath: "/nonexistent/x.flac")
        #expect(mkfifo(album.appendingPathComponent("fifo.flac").path, 0o644) == 0)
        let loop = album.appendingPathComponent("loop", isDirectory: true)
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: f.music.path)
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(report.imported >= 2)
        let failed = Set(try runtime.store.scanFailures().map { URL(fileURLWithPath: $0.path).lastPathComponent })
        #expect(failed.isSuperset(of: ["zero.flac", "random.mp3", "broken.flac", "fifo.flac"]), "\(failed)")
        #expect(try runtime.store.scanFailures().allSatisfy { !$0.reason.isEmpty })
    }
}
