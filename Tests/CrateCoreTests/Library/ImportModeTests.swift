import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

@Suite struct ImportModeTests {
    @Test func defaultModeCopiesIntoTheLibraryAndIsRemembered() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path])
        #expect(report.mode == .copy && report.imported == 2)
        #expect(f.files(under: f.settings.libraryFolder) == ["Band/Record/01 Record 1.flac", "Band/Record/02 Record 2.flac"])
        #expect(f.files(under: source) == ["01.flac", "02.flac"])   // originals untouched
        let tracks = try runtime.store.tracks(albumID: try #require(try runtime.store.albums().first).id)
        #expect(tracks.allSatisfy { $0.importMode == .copy && $0.path?.hasPrefix(f.settings.libraryFolder.path) == true })
        #expect(tracks.allSatisfy { $0.ref.id == $0.path })
        // The copy is byte for byte the original.
        #expect(try LibraryFixture.sha(URL(fileURLWithPath: try #require(tracks[0].path)))
                == LibraryFixture.sha(source.appendingPathComponent("01.flac")))
        // The mode chosen at the first import stays; a flag changes it for good.
        #expect(runtime.library.currentImportMode() == .copy)
        try f.album("Other", "Tape", tone: 880)
        #expect(try runtime.library.importPaths([f.music.appendingPathComponent("Other").path], mode: .reference).mode == .reference)
        #expect(runtime.library.currentImportMode() == .reference)
        #expect(try runtime.library.importPaths([f.music.path]).mode == .reference)
    }

    @Test func referenceModeLeavesFilesWhereTheyAre() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        #expect(try runtime.library.importPaths([f.music.path], mode: .reference).imported == 2)
        #expect(f.files(under: f.settings.libraryFolder).isEmpty)
        let paths = try runtime.store.tracks(albumID: 1).compactMap(\.path)
        #expect(paths == [source.appendingPathComponent("01.flac").path, source.appendingPathComponent("02.flac").path])
    }

    @Test func copyThenDeleteWithoutPermissionKeepsTheOriginals() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let report = try f.runtime().library.importPaths([f.music.path], mode: .copyThenDelete)
        #expect(report.imported == 2 && report.originalsKept == 2 && report.originalsDeleted == 0)
        #expect(f.files(under: source) == ["01.flac", "02.flac"])
        #expect(f.files(under: f.settings.libraryFolder).count == 2)
    }

    @Test func copyThenDeleteWithPermissionDeletesOnlyAfterAVerifiedCommittedCopy() throws {
        var f = try LibraryFixture()
        f.settings.deleteOriginals = true   // the config permission
        let source = try f.album("Band", "Record")
        let before = try LibraryFixture.sha(source.appendingPathComponent("01.flac"))
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path], mode: .copyThenDelete)
        #expect(report.imported == 2 && report.originalsDeleted == 2)
        #expect(f.files(under: source).isEmpty)
        // The copies are in the database and match the originals' bytes.
        let tracks = try runtime.store.tracks(albumID: 1)
        #expect(tracks.count == 2 && tracks.allSatisfy { $0.importMode == .copyThenDelete })
        #expect(try LibraryFixture.sha(URL(fileURLWithPath: try #require(tracks[0].path))) == before)
    }

    @Test func aDuplicateNeverDeletesItsOriginal() throws {
        let f = try LibraryFixture()
        let source = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .copy)
        // The same files under another path, imported with permission to delete originals.
        let again = f.dir.appendingPathComponent("again", isDirectory: true)
        try FileManager.default.copyItem(at: source, to: again)
        let report = try runtime.library.importPaths([again.path], mode: .copyThenDelete, deleteOriginals: true)
        #expect(report.duplicateCount == 2 && report.imported == 0 && report.originalsDeleted == 0)
        #expect(f.files(under: again) == ["01.flac", "02.flac"])
        #expect(try runtime.store.counts().tracks == 2)
    }

    @Test func importingCratesOwnLibraryFolderIsRefused() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        #expect(throws: LibraryError.self) { try runtime.library.importPaths([f.settings.libraryFolder.path]) }
    }
}
