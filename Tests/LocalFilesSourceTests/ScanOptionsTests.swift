import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

/// What a scan does with what the library tells it (known stamps, picture keeping) and what it reports
/// beyond tracks (folder images, census, order).
@Suite struct ScanOptionsTests {
    let scan: ScanHarness

    init() throws {
        scan = try ScanHarness("crate-options")
    }

    /// The stamp stat gives, with the modification time as the kernel keeps it, for restoring it later.
    private func stampAndTime(_ url: URL) throws -> (FileStamp, timespec) {
        var st = stat()
        guard stat(url.path, &st) == 0 else { throw HardInputs.Failure(description: "stat \(url.path): \(errno)") }
        let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        return (FileStamp(size: Int64(st.st_size), modified: modified), st.st_mtim)
    }

    @Test func knownUnchangedFilesAreNotOpened() throws {
        let dir = try scan.folder("Album")
        let a = try scan.goodFile(in: dir, name: "a.wav")
        let b = try scan.goodFile(in: dir, name: "b.wav")
        let first = try scan.scan()
        #expect(first.fileNames == ["a.wav", "b.wav"])
        let stamps = Dictionary(uniqueKeysWithValues: first.tracks.map { ($0.path, $0.stamp) })
        #expect(stamps[a.path]?.matches(try stampAndTime(a).0) == true)

        // Garbage of the same size with the old modification time: only opening the file could tell.
        let (stamp, mtime) = try stampAndTime(a)
        try HardInputs.write(HardInputs.random(count: Int(stamp.size), seed: 9), to: a)
        let times = [mtime, mtime]
        #expect(utimensat(AT_FDCWD, a.path, times, 0) == 0)
        #expect((try stampAndTime(a)).0 == stamp)

        let recorder = OptionsRecorder()
        let second = try scan.scan(options: recorder.options(stamps: stamps))
        #expect(second.tracks.isEmpty && second.failures.isEmpty)
        #expect(second.summary.unchanged == 2 && second.batches.map(\.unchanged) == [2])
        #expect(second.batches.map(\.fileCount) == [2])
        #expect(recorder.knownAsked == [dir.path])

        // A new modification time makes the file be read again (and now found to be garbage).
        var later = mtime
        later.tv_sec += 10
        #expect(utimensat(AT_FDCWD, a.path, [later, later], 0) == 0)
        let third = try scan.scan(options: recorder.options(stamps: stamps))
        #expect(third.summary.unchanged == 1 && third.reasons["a.wav"]?.hasPrefix("not a WAV file") == true)
        _ = b
    }

    @Test func knownIsAskedOnlyForFoldersWithAudioFiles() throws {
        try scan.goodFile(in: try scan.folder("A"))
        try Data("text".utf8).write(to: try scan.folder("B").appendingPathComponent("notes.txt"))
        _ = try scan.folder("C/D")
        try scan.goodFile(in: try scan.folder("C/D/E"))
        let recorder = OptionsRecorder()
        let result = try scan.scan(options: recorder.options())
        #expect(recorder.knownAsked == [scan.root.appendingPathComponent("A").path, scan.root.appendingPathComponent("C/D/E").path])
        #expect(result.batches.map(\.folder) == recorder.knownAsked)
    }

    @Test func aSingleKnownFileIsUnchanged() throws {
        let file = try scan.goodFile(in: scan.root, name: "solo.wav")
        let recorder = OptionsRecorder()
        let result = try scan.scan(file, options: recorder.options(stamps: [file.path: try stampAndTime(file).0]))
        #expect(result.summary.unchanged == 1 && result.tracks.isEmpty)
        #expect(recorder.knownAsked == [scan.root.path])
    }

    @Test func knownEmptyFileIsUnchanged() throws {
        // The library keeps failures with their stamps; an empty file it already reported is not reported again.
        let empty = try scan.folder("E").appendingPathComponent("empty.flac")
        try Data().write(to: empty)
        #expect(try scan.scan().reasons == ["empty.flac": "file is empty"])
        let again = try scan.scan(options: OptionsRecorder().options(stamps: [empty.path: try stampAndTime(empty).0]))
        #expect(again.failures.isEmpty && again.summary.unchanged == 1)
    }

    @Test func embeddedPictureIsKeptAndOnlyItsHashTravels() throws {
        let dir = try scan.folder("Covers")
        let jpeg = try PictureFixture.jpeg(in: try scan.folder("Images"), name: "red.jpg")
        try PictureFixture.encode(.flac, to: dir.appendingPathComponent("with.flac"), tags: ["title": "With"],
                                  pictures: [(jpeg, PictureFixture.frontCover)])
        try PictureFixture.encode(.mp3, to: dir.appendingPathComponent("with.mp3"), tags: ["title": "With MP3"],
                                  pictures: [(jpeg, PictureFixture.frontCover)])
        try scan.goodFile(in: dir, name: "without.wav")
        let recorder = OptionsRecorder()
        let result = try scan.scan(dir, options: recorder.options())
        #expect(result.fileNames == ["with.flac", "with.mp3", "without.wav"])
        // Files are probed in parallel, so which one the recorder saw first is not fixed.
        #expect(Set(result.tracks.prefix(2).compactMap(\.artworkHash)) == ["hash-1", "hash-2"])
        #expect(result.tracks.count == 3 && result.tracks[2].artworkHash == nil)
        let expected = EmbeddedPicture(data: try Data(contentsOf: jpeg), mimeType: "image/jpeg")
        #expect(recorder.pictures == [expected, expected])
    }

    @Test func folderImageByPreference() throws {
        let cases: [(files: [String], expected: String?)] = [
            (["front.png", "Folder.JPG", "cover.jpeg", "cover.gif"], "cover.jpeg"),
            (["Front.PNG", "folder.txt", "back.jpg"], "Front.PNG"),
            (["FRONT.jpg", "folder.png"], "folder.png"),
            (["album.jpg", ".cover.jpg"], nil),
        ]
        for (index, test) in cases.enumerated() {
            let dir = try scan.folder("F\(index)")
            try scan.goodFile(in: dir)
            for name in test.files { try Data([0xFF, 0xD8, 0xFF]).write(to: dir.appendingPathComponent(name)) }
            let batch = try #require(try scan.scan(dir).batches.first)
            #expect(batch.folderImage == test.expected.map { dir.appendingPathComponent($0).path }, "\(test.files)")
        }
        // A folder named like a cover is not one; a link to a cover image is.
        let dir = try scan.folder("Linked")
        try scan.goodFile(in: dir)
        _ = try scan.folder("Linked/cover.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: dir.appendingPathComponent("art.jpg"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("front.jpg").path, withDestinationPath: "art.jpg")
        #expect(try scan.scan(dir).batches.first?.folderImage == dir.appendingPathComponent("front.jpg").path)
    }

    @Test func censusCountsWhatAScanAccountsFor() throws {
        let a = try scan.folder("A")
        let b = try scan.folder("A/B")
        try scan.goodFile(in: a, name: "1.wav")
        try scan.goodFile(in: a, name: "2.WAV")
        try Data().write(to: b.appendingPathComponent("empty.flac"))
        try Data("x".utf8).write(to: b.appendingPathComponent("noise.mp3"))
        try HardInputs.mkfifo(at: b.appendingPathComponent("pipe.flac"))
        try Data("x".utf8).write(to: b.appendingPathComponent("cover.jpg"))
        try Data("x".utf8).write(to: b.appendingPathComponent("song.ogg"))  // no decoder for it in this registry
        try scan.goodFile(in: b, name: ".hidden.wav")
        try scan.goodFile(in: try scan.folder(".Hidden"), name: "inside.wav")
        #expect(scan.census() == 5)
        let result = try scan.scan()
        #expect(result.batches.reduce(0) { $0 + $1.fileCount } == 5)
        #expect(result.summary.filesSeen == 7 && result.summary.skipped == 2)
        #expect(result.summary.tracksRead == 2 && result.summary.failures == 3)
        #expect(scan.census(a.appendingPathComponent("1.wav")) == 1)
        #expect(scan.census(scan.root.appendingPathComponent("missing")) == 0)
    }

    @Test func foldersGoDepthFirstInByteOrder() throws {
        for path in ["b", "B", "a/z", "a/Z", "a", "é", "e"] {
            try scan.goodFile(in: try scan.folder(path), name: "t.wav")
        }
        try scan.goodFile(in: scan.root, name: "b.wav")
        try scan.goodFile(in: scan.root, name: "a.wav")
        try scan.goodFile(in: scan.root, name: "B.wav")
        let result = try scan.scan()
        let relative = result.tracks.map { String($0.path.dropFirst(scan.root.path.count + 1)) }
        #expect(relative == ["B.wav", "a.wav", "b.wav", "B/t.wav", "a/t.wav", "a/Z/t.wav", "a/z/t.wav", "b/t.wav", "e/t.wav", "é/t.wav"])
    }
}
