import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

@Suite struct DedupTests {
    @Test func aDuplicateUnderAnotherPathIsSkippedAndReported() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let copy = f.music.appendingPathComponent("Copies", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: album.appendingPathComponent("01.flac"), to: copy.appendingPathComponent("same.flac"))
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(report.imported == 2 && report.duplicateCount == 1)
        #expect(report.duplicates.first?.path == copy.appendingPathComponent("same.flac").path)
        #expect(report.duplicates.first?.existingPath == album.appendingPathComponent("01.flac").path)
        #expect(try runtime.store.counts().tracks == 2)
        // Both files stay on disk, and a rescan does not look at the duplicate again.
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("same.flac").path))
        #expect(try runtime.library.rescan().unchanged == 3)
    }

    @Test func duplicatesInsideOneFolderAreCaught() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        try FileManager.default.copyItem(at: album.appendingPathComponent("01.flac"), to: album.appendingPathComponent("01 copy.flac"))
        let report = try f.runtime().library.importPaths([f.music.path])
        #expect(report.imported == 2 && report.duplicateCount == 1)
    }

    @Test func sameStartAndEndButDifferentLengthIsNotADuplicate() throws {
        let f = try LibraryFixture()
        let folder = f.music.appendingPathComponent("A", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Different sizes: the size guard keeps them apart whatever the hash of their ends.
        try Fixture.encode(.wav, to: folder.appendingPathComponent("short.wav"), frames: 44100, tags: ["title": "short"])
        try Fixture.encode(.wav, to: folder.appendingPathComponent("long.wav"), frames: 88200, tags: ["title": "long"])
        #expect(try f.runtime().library.importPaths([f.music.path]).imported == 2)
    }
}
