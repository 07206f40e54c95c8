import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

/// File-system oddities a real collection holds: the walk records each as a failure (or walks it once)
/// and never blocks, crashes or stops.
@Suite struct FileSystemInputTests {
    let scan: ScanHarness

    init() throws {
        scan = try ScanHarness("crate-fs")
    }

    @Test func namedPipeIsNotOpened() throws {
        // Opening a FIFO for reading blocks until a writer comes: the scan would hang if it tried.
        let (reason, _) = try scan.scanNextToGood("pipe.flac") { try HardInputs.mkfifo(at: $0) }
        #expect(reason == "not a regular file (it is a named pipe)")
    }

    @Test func socketIsNotOpened() throws {
        var fd: Int32 = -1
        defer { if fd >= 0 { close(fd) } }
        let (reason, _) = try scan.scanNextToGood("sock.mp3") { fd = try HardInputs.socket(at: $0) }
        #expect(reason == "not a regular file (it is a socket)")
    }

    @Test(.enabled(if: getuid() != 0, "root reads any file"))
    func unreadableFileIsPermissionDenied() throws {
        let (reason, _) = try scan.scanNextToGood("locked.wav") { url in
            try scan.goodFile(in: url.deletingLastPathComponent(), name: url.lastPathComponent)
            chmod(url.path, 0)
        }
        #expect(reason == "permission denied")
    }

    @Test(.enabled(if: getuid() != 0, "root lists any folder"))
    func unlistableFolderIsOneFailure() throws {
        let locked = try scan.folder("A/Locked")
        try scan.goodFile(in: locked)
        try scan.goodFile(in: try scan.folder("B"))
        chmod(locked.path, 0)
        defer { chmod(locked.path, 0o755) }
        let result = try scan.scan()
        #expect(result.fileNames == ["good.wav"])
        #expect(result.failures == [ScanFailure(path: locked.path, reason: "cannot list this folder: permission denied")])
    }

    @Test func brokenSymbolicLinkNamesItsTarget() throws {
        let (reason, _) = try scan.scanNextToGood("dangling.flac") { url in
            try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/nonexistent/file.flac")
        }
        #expect(reason == "broken symbolic link to /nonexistent/file.flac")
    }

    @Test func fileSymbolicLinkLoopsAreFailures() throws {
        let dir = try scan.folder("Links")
        try scan.goodFile(in: dir)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("self.mp3").path, withDestinationPath: "self.mp3")
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("a.flac").path, withDestinationPath: "b.flac")
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("b.flac").path, withDestinationPath: "a.flac")
        // A link to a good file is imported under the link's own path.
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("alias.wav").path, withDestinationPath: "good.wav")
        let result = try scan.scan()
        #expect(result.fileNames == ["alias.wav", "good.wav"])
        #expect(result.reasons == [
            "self.mp3": "symbolic link loop: it points to self.mp3, which leads back to it",
            "a.flac": "symbolic link loop: it points to b.flac, which leads back to it",
            "b.flac": "symbolic link loop: it points to a.flac, which leads back to it",
        ])
    }

    @Test func folderLinksToAncestorsAreWalkedOnce() throws {
        let album = try scan.folder("Music/Album")
        try scan.goodFile(in: album)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: album.appendingPathComponent("up").path, withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: album.appendingPathComponent("root").path, withDestinationPath: scan.root.path)
        try fm.createSymbolicLink(atPath: album.appendingPathComponent("self").path, withDestinationPath: ".")
        let result = try scan.scan()
        #expect(result.tracks.map(\.path) == [album.appendingPathComponent("good.wav").path])
        #expect(result.summary.folders == 3 && result.failures.isEmpty)
        #expect(scan.census() == 1)
    }

    @Test func linkedFolderElsewhereIsWalked() throws {
        let outside = try Fixture.temporaryDirectory("crate-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        try scan.goodFile(in: outside)
        try FileManager.default.createSymbolicLink(atPath: scan.root.appendingPathComponent("Linked").path,
                                                   withDestinationPath: outside.path)
        let result = try scan.scan()
        // Issue 16, item 7: stored under its real path (it was the link's), so the file outlives the link.
        #expect(result.tracks.map(\.path) == [outside.resolvingSymlinksInPath().appendingPathComponent("good.wav").path])
    }

    /// A library that knows files by the path through a link (imported before links were resolved) finds them
    /// unchanged there: a rescan neither imports them again nor calls them duplicates.
    @Test func filesKnownByTheLinkPathStayUnchanged() throws {
        let outside = try Fixture.temporaryDirectory("crate-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        let good = try scan.goodFile(in: outside)
        let link = scan.root.appendingPathComponent("Linked")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: outside.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: good.path)
        let stamp = FileStamp(size: Int64((attributes[.size] as? Int) ?? 0),
                              modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let known = [link.path: [link.appendingPathComponent("good.wav").path: stamp]]
        let result = try scan.scan(options: ScanOptions(known: { known[$0] ?? [:] }))
        #expect(result.tracks.isEmpty && result.summary.unchanged == 1, "\(result.tracks.map(\.path))")
    }

    /// Issue 16, item 7: a broken link to a folder (no audio suffix) is reported, not skipped in silence.
    @Test func aBrokenLinkToAFolderIsReported() throws {
        try scan.goodFile(in: scan.root)
        try FileManager.default.createSymbolicLink(atPath: scan.root.appendingPathComponent("Old Albums").path,
                                                   withDestinationPath: "/nonexistent/old-albums")
        let result = try scan.scan()
        #expect(result.reasons == ["Old Albums": "broken symbolic link to /nonexistent/old-albums"])
        #expect(result.summary.skipped == 0 && result.summary.failures == 1)
    }

    @Test func fileNameThatIsNotUTF8() throws {
        let dir = try scan.folder("Names")
        try scan.goodFile(in: dir)
        let wav = try [UInt8](Data(contentsOf: dir.appendingPathComponent("good.wav")))
        try HardInputs.createFile(named: Array("caf".utf8) + [0xE9] + Array(" \u{00E9}t\u{00E9} \u{FF}.wav".utf8), in: dir, contents: wav)
        // Not audio by its suffix: skipped like any other non-audio file, without a failure.
        try HardInputs.createFile(named: Array("notes".utf8) + [0xFF, 0xFE] + Array(".txt".utf8), in: dir, contents: [1, 2, 3])
        // A folder with such a name, and a file in it (made under another name, then renamed byte for byte).
        let made = try scan.folder("Names/disc")
        try scan.goodFile(in: made, name: "inside.wav")
        let disc = dir.path + "/" + RawFileName.string(Array("Disc ".utf8) + [0xC3, 0x28])
        #expect(RawFileName.withCPath(disc) { rename(made.path, $0) } == 0)
        let result = try scan.scan()
        // Listed, not refused: each byte that is not UTF-8 kept as an escape (RawFileName), read as Windows-1252.
        #expect(result.fileNames.map { RawFileName.readable($0) } == ["caf\u{E9} \u{E9}t\u{E9} \u{FF}.wav", "good.wav", "inside.wav"])
        #expect(result.fileNames.first.map(RawFileName.bytes) == Array("caf".utf8) + [0xE9] + Array(" \u{00E9}t\u{00E9} \u{FF}.wav".utf8))
        #expect(result.failures == [])
        #expect(result.summary.skipped == 1)
        #expect(scan.census() == 3)
    }

    @Test func threeHundredLevelsDeep() throws {
        let levels = (0..<300).map { "d\($0)" }.joined(separator: "/")
        let deep = try scan.folder(levels)
        try scan.goodFile(in: deep, name: "deep.wav")
        try scan.goodFile(in: scan.root, name: "top.wav")
        let result = try scan.scan()
        #expect(result.fileNames == ["top.wav", "deep.wav"])
        #expect(result.summary.folders == 301)
        #expect(scan.census() == 2)
    }

    @Test func pathLongerThanPathMax() throws {
        // 20 levels of 250-byte names: about 5 KB, past Linux's 4096-byte PATH_MAX.
        let name = { (level: Int) in String(format: "%03d", level) + String(repeating: "x", count: 247) }
        let wav = try [UInt8](Data(contentsOf: try scan.goodFile(in: scan.root, name: "top.wav")))
        try HardInputs.chain(in: scan.root, levels: 20, name: name, file: "lost.wav", contents: wav)
        defer { HardInputs.removeChain(in: scan.root, levels: 20, name: name, file: "lost.wav") }
        let result = try scan.scan()
        #expect(result.fileNames == ["top.wav"])
        let failure = try #require(result.failures.first)
        #expect(result.failures.count == 1)
        #expect(failure.path.utf8.count >= Int(PATH_MAX))
        #expect(failure.reason.hasPrefix("cannot list this folder: path is") && failure.reason.hasSuffix("move it higher up to import it"),
                "\(failure.reason)")
    }

    @Test func folderNamedLikeAnAudioFileIsWalked() throws {
        let dir = try scan.folder("Album.flac")
        try scan.goodFile(in: dir)
        let result = try scan.scan()
        #expect(result.fileNames == ["good.wav"] && result.failures.isEmpty)
        #expect(scan.census() == 1)
    }
}
