import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

@Suite struct RescanTests {
    @Test func rescanAddsNewFilesOfReferenceFoldersAndTheImportFolder() throws {
        let f = try LibraryFixture()
        try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        try f.album("Band", "Second", tone: 660)
        // Dropped into the import folder: imported with the library's mode at the next rescan (or launch).
        try f.album("Dropped", "Inbox", tone: 990, in: f.settings.importFolder)
        let report = try runtime.library.rescan()
        #expect(report.imported == 4 && report.unchanged == 2, "\(report)")
        #expect(try runtime.store.albums().map(\.title).sorted() == ["Inbox", "Record", "Second"])
    }

    /// A no-change rescan opens no file: a file overwritten with garbage of the same size, its modification
    /// time put back, is still counted unchanged, with its old tags and no failure.
    @Test func noChangeRescanReadsNoFileContents() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let file = album.appendingPathComponent("01.flac")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let size = try #require((attributes[.size] as? NSNumber)?.intValue)
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        try FileManager.default.setAttributes([.modificationDate: try #require(attributes[.modificationDate])], ofItemAtPath: file.path)
        let report = try runtime.library.rescan()
        #expect(report.unchanged == 2 && report.imported == 0 && report.updated == 0 && report.failureCount == 0, "\(report)")
        #expect(try runtime.store.tracks(albumID: 1).map(\.title) == ["Record 1", "Record 2"])
        // Touching it (a real change) makes the next rescan read it, and fail on the garbage.
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        #expect(try runtime.library.rescan().failureCount == 1)
    }

    @Test func vanishedFilesAreFlaggedMissingAndClearedWhenBack() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let file = album.appendingPathComponent("02.flac")
        let aside = f.dir.appendingPathComponent("aside.flac")
        try FileManager.default.moveItem(at: file, to: aside)
        let report = try runtime.library.rescan()
        #expect(report.missing?.newlyMissing == 1 && report.missing?.missing["not_found"] == 1)
        let missing = try runtime.library.missingTracks()
        #expect(missing.map(\.track.title) == ["Record 2"] && missing.first?.reason == .notFound)
        try FileManager.default.moveItem(at: aside, to: file)
        #expect(try runtime.library.rescan().missing?.found == 1)
        #expect(try runtime.library.missingTracks().isEmpty)
    }

    @Test func aMissingEntryIsRelinkedByReimportingItsFile() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let before = try runtime.store.tracks(albumID: 1)
        let moved = f.dir.appendingPathComponent("moved", isDirectory: true)
        try FileManager.default.moveItem(at: album, to: moved)
        _ = try runtime.library.checkMissing()
        #expect(try runtime.library.missingTracks().count == 2)
        let report = try runtime.library.importPaths([moved.path])
        #expect(report.relinked == 2 && report.imported == 0 && report.duplicateCount == 0)
        let after = try runtime.store.tracks(albumID: 1)
        #expect(after.map(\.id) == before.map(\.id))   // same entries: queue places and history survive
        #expect(after.allSatisfy { $0.missing == nil && $0.path?.hasPrefix(moved.path) == true && $0.ref.id == $0.path })
    }

    @Test func relinkPointsATrackAtAFileElsewhere() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let elsewhere = f.dir.appendingPathComponent("elsewhere.flac")
        try FileManager.default.moveItem(at: album.appendingPathComponent("01.flac"), to: elsewhere)
        _ = try runtime.library.checkMissing()
        let id = try #require(try runtime.library.missingTracks().first?.track.id)
        let track = try runtime.library.relink(trackID: id, to: elsewhere.path)
        #expect(track.path == elsewhere.path && track.missing == nil && track.id == id)
        #expect(throws: (any Error).self) { try runtime.library.relink(trackID: id, to: f.dir.appendingPathComponent("nope.flac").path) }
    }

    /// A page of files large enough to be checked on several cores at once: each file's flag is its own, whatever
    /// lane checked it (gone files at both ends, in the middle and at a lane's edge; a bad URI among them).
    @Test func aLargePageIsCheckedFileByFile() throws {
        let f = try LibraryFixture()
        let runtime = try f.runtime()
        let folder = f.dir.appendingPathComponent("many", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let count = 301
        var tracks: [ScannedTrack] = []
        for i in 0..<count {
            let path = i == 150 ? "relative/\(i).flac" : folder.appendingPathComponent("\(i).flac").path
            if i != 150 { try Data([1]).write(to: URL(fileURLWithPath: path)) }
            tracks.append(ScannedTrack(ref: TrackRef(source: "file", id: path), path: path, size: 1, modified: Date(),
                                       tags: TrackTags(title: "T\(i)"), info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2),
                                       title: "T\(i)", artist: "X",
                                       album: AlbumKey(identity: "x", title: "X", artist: "X", date: nil, isCompilation: false)))
        }
        try runtime.store.save(ScanBatch(folder: folder.path, tracks: tracks, failures: []))
        let gone = [0, 1, 75, 149, 151, 299, 300]
        for i in gone { try FileManager.default.removeItem(at: folder.appendingPathComponent("\(i).flac")) }
        let check = try runtime.library.checkMissing()
        #expect(check.checked == count && check.newlyMissing == gone.count + 1, "\(check)")
        #expect(check.missing["not_found"] == gone.count && check.missing["invalid_uri"] == 1)
        let missing = try runtime.library.missingTracks()
        #expect(Set(missing.map(\.track.title)) == Set((gone + [150]).map { "T\($0)" }))
        #expect(missing.allSatisfy { ($0.reason == .invalidURI) == ($0.track.title == "T150") })
    }

    @Test func anEntryWithABadURIIsFlaggedInvalid() throws {
        let f = try LibraryFixture()
        let runtime = try f.runtime()
        let bad = ScannedTrack(ref: TrackRef(source: "file", id: "relative/song.flac"), path: "relative/song.flac", size: 1,
                               modified: Date(), tags: TrackTags(title: "Bad"), info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2),
                               title: "Bad", artist: "X", album: AlbumKey(identity: "x", title: "X", artist: "X", date: nil, isCompilation: false))
        try runtime.store.save(ScanBatch(folder: "relative", tracks: [bad], failures: []))
        let check = try runtime.library.checkMissing()
        #expect(check.missing["invalid_uri"] == 1)
        #expect(try runtime.library.missingTracks().first?.reason == .invalidURI)
    }
}
