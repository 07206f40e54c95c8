import CrateCore
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import LocalFilesSource
import MP3Decoder
import Testing
import WAVDecoder

@Suite struct LocalFilesScanTests {
    let root: URL
    let decoders: DecoderRegistry

    init() throws {
        root = try Fixture.temporaryDirectory("crate-scan")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), MP3DecoderPlugin(), WAVDecoderPlugin()])
    }

    func scan(_ url: URL? = nil) throws -> (ScanSummary, [ScanBatch]) {
        var batches: [ScanBatch] = []
        let summary = try FolderScan(decoders: decoders).scan(LocalFilesSource(), root: url ?? root) { batches.append($0) }
        return (summary, batches)
    }

    func folder(_ path: String) throws -> URL {
        let url = root.appendingPathComponent(path, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func readsTagsDurationAndFormatRecursively() throws {
        let album = try folder("Artist/Album")
        try Fixture.encode(.flac, to: album.appendingPathComponent("01.flac"), frames: 44100,
                           tags: ["title": "One", "artist": "Artist", "album_artist": "Artist", "album": "Album",
                                  "genre": "Rock", "date": "2001", "track": "1/2", "disc": "1/1"])
        try Fixture.encode(.mp3, to: album.appendingPathComponent("02.mp3"), frames: 44100,
                           tags: ["title": "Two", "artist": "Artist", "album": "Album", "date": "2001", "track": "2/2"])
        let (summary, batches) = try scan()
        let tracks = batches.flatMap(\.tracks).sorted { $0.path < $1.path }
        #expect(summary.tracksRead == 2 && summary.failures == 0)
        #expect(tracks.map(\.title) == ["One", "Two"])
        #expect(tracks.map(\.info.codec) == ["flac", "mp3"])
        #expect(tracks[0].info.frames == 44100 && tracks[0].info.bitsPerSample == 16)
        #expect(tracks[0].tags.genre == "Rock" && tracks[0].tags.trackTotal == 2 && tracks[0].tags.discNumber == 1)
        // Same album artist (tagged on one, majority artist on the other), album and year: one album.
        #expect(tracks[0].album.identity == tracks[1].album.identity)
        #expect(tracks[0].ref == TrackRef(source: "file", id: tracks[0].path))
    }

    @Test func skipsHiddenFilesAndFoldersAndNonAudio() throws {
        let a = try folder("A")
        let hidden = try folder(".hidden")
        try Fixture.encode(.wav, to: a.appendingPathComponent("x.wav"), frames: 1000, tags: ["title": "x"])
        try Fixture.encode(.wav, to: a.appendingPathComponent(".y.wav"), frames: 1000)
        try Fixture.encode(.wav, to: hidden.appendingPathComponent("z.wav"), frames: 1000)
        try Data("cover".utf8).write(to: a.appendingPathComponent("cover.jpg"))
        let (summary, batches) = try scan()
        #expect(batches.flatMap(\.tracks).map(\.title) == ["x"])
        #expect(summary.skipped == 1)
    }

    @Test func badFilesAreReportedAndTheScanGoesOn() throws {
        let dir = try folder("Bad")
        try Fixture.encode(.flac, to: dir.appendingPathComponent("good.flac"), frames: 44100, tags: ["title": "Good"])
        try Data().write(to: dir.appendingPathComponent("empty.flac"))
        var random = SystemRandomNumberGenerator()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
            .write(to: dir.appendingPathComponent("noise.mp3"))
        let full = try Data(contentsOf: try Fixture.encode(.flac, to: dir.appendingPathComponent("whole.tmp.flac"), frames: 88200))
        try full.prefix(full.count / 2).write(to: dir.appendingPathComponent("truncated.flac"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("whole.tmp.flac"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("dangling.flac").path,
                                                   withDestinationPath: "/nonexistent/file.flac")
        let (summary, batches) = try scan()
        let failures = Dictionary(uniqueKeysWithValues: batches.flatMap(\.failures).map {
            (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason)
        })
        #expect(batches.flatMap(\.tracks).map(\.title) == ["Good"])
        #expect(Set(failures.keys) == ["empty.flac", "noise.mp3", "truncated.flac", "dangling.flac"])
        #expect(failures.values.allSatisfy { !$0.isEmpty })
        #expect(failures["empty.flac"] == "file is empty")
        #expect(failures["dangling.flac"] == "broken symbolic link to /nonexistent/file.flac")
        #expect(failures["truncated.flac"]?.hasPrefix("truncated") == true)
        #expect(summary.failures == 4)
    }

    @Test func symlinkLoopIsVisitedOnce() throws {
        let a = try folder("Loop")
        try Fixture.encode(.wav, to: a.appendingPathComponent("t.wav"), frames: 1000, tags: ["title": "t"])
        try FileManager.default.createSymbolicLink(atPath: a.appendingPathComponent("again").path, withDestinationPath: a.path)
        let (_, batches) = try scan()
        #expect(batches.flatMap(\.tracks).count == 1)
    }

    @Test func aSingleFileCanBeScanned() throws {
        let file = try Fixture.encode(.wav, to: root.appendingPathComponent("one.wav"), frames: 1000, tags: ["title": "Solo"])
        let (_, batches) = try scan(file)
        #expect(batches.flatMap(\.tracks).map(\.title) == ["Solo"])
    }

    @Test func missingRootIsAClearError() {
        #expect(throws: LocalFilesError.self) { try scan(root.appendingPathComponent("nope")) }
    }

    @Test func untaggedFilesUseFileAndFolderNames() throws {
        let dir = try folder("Some Album")
        try Fixture.encode(.wav, to: dir.appendingPathComponent("07 Song Name.wav"), frames: 1000)
        let (_, batches) = try scan()
        let track = try #require(batches.flatMap(\.tracks).first)
        #expect(track.title == "07 Song Name" && track.album.title == "Some Album" && track.artist == "Unknown Artist")
    }

    @Test func locateTurnsARefIntoAFile() throws {
        #expect(try LocalFilesSource().locate(TrackRef(source: "file", id: "/m/a.flac")) == .file(URL(fileURLWithPath: "/m/a.flac")))
        #expect(throws: LocalFilesError.self) { try LocalFilesSource().locate(TrackRef(source: "file", id: "relative.flac")) }
    }
}
