import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

/// A disc's subtitle goes from real files (made by ffmpeg, changed by metaflac) through the decoders, the import and
/// the library database to the tracks Core serves.
@Suite struct DiscSubtitleTests {
    /// A three-disc album: FLAC (a Vorbis DISCSUBTITLE comment, and a track without one), an ID3v2.4 MP3 with a TSST
    /// frame, an ID3v2.3 MP3 with a TXXX:DISCSUBTITLE frame. A rescan that finds the FLACs changed stores the new
    /// values, a removed subtitle included.
    @Test func importAndRescanStoreTheDiscSubtitle() throws {
        let f = try LibraryFixture("crate-disc-subtitle")
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let folder = f.music.appendingPathComponent("Band/Double", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let common = ["artist": "Band", "album": "Double", "date": "2001"]
        func tags(_ title: String, disc: String, track: String, _ more: [String: String] = [:]) -> [String: String] {
            common.merging(["title": title, "disc": disc, "track": track]) { $1 }.merging(more) { $1 }
        }
        let studio = folder.appendingPathComponent("1-01.flac")
        try Fixture.encode(.flac, to: studio, frames: 4410, frequency: 440,
                           tags: tags("Studio One", disc: "1/3", track: "1", ["DISCSUBTITLE": "The Studio Set"]))
        let plain = folder.appendingPathComponent("1-02.flac")
        try Fixture.encode(.flac, to: plain, frames: 4851, frequency: 550, tags: tags("Studio Two", disc: "1/3", track: "2"))
        // ffmpeg writes TSST as its own frame only in ID3v2.4 (in v2.3 it becomes a TXXX frame), so not through
        // Fixture.encode, which writes v2.3.
        let live = folder.appendingPathComponent("2-01.mp3")
        let source = f.dir.appendingPathComponent("live.wav")
        try Fixture.writeWAV(Fixture.sine(frames: 4410, frequency: 660), sampleRate: 44100, channels: 2, to: source)
        var arguments = ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-map_metadata", "-1",
                         "-c:a", "libmp3lame", "-b:a", "192k", "-id3v2_version", "4"]
        for (key, value) in tags("Live One", disc: "2/3", track: "1", ["TSST": "The Live Set"]).sorted(by: { $0.key < $1.key }) {
            arguments += ["-metadata", "\(key)=\(value)"]
        }
        try Fixture.run("ffmpeg", arguments + [live.path])
        let header = try Data(contentsOf: live).prefix(512)
        #expect(header.starts(with: Array("ID3".utf8) + [4]), "an ID3v2.4 tag")
        #expect(header.firstRange(of: Data("TSST".utf8)) != nil && header.firstRange(of: Data("TXXX".utf8)) == nil,
                "a TSST frame, no user text frame")
        try Fixture.encode(.mp3, to: folder.appendingPathComponent("3-01.mp3"), frames: 4410, frequency: 770,
                           tags: tags("Bonus One", disc: "3/3", track: "1", ["DISCSUBTITLE": "Bonus Disc"]))

        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(report.imported == 4 && report.failureCount == 0, "\(report)")
        let album = try #require(try runtime.collection.albums().first)
        #expect(try runtime.collection.albums().count == 1 && album.discCount == 3)
        func shown() throws -> [String] {
            try runtime.collection.tracks(albumID: album.id).map { "\($0.discNumber ?? 0) \($0.title): \($0.discSubtitle ?? "-")" }
        }
        #expect(try shown() == ["1 Studio One: The Studio Set", "1 Studio Two: -", "2 Live One: The Live Set",
                                "3 Bonus One: Bonus Disc"])
        let liveTrack = try #require(try runtime.collection.tracks(albumID: album.id).first { $0.title == "Live One" })
        #expect(try runtime.store.track(id: liveTrack.id)?.discSubtitle == "The Live Set")

        // Retagged in place: the subtitle moves from the first track to the second.
        try Fixture.run("metaflac", ["--remove-tag=DISCSUBTITLE", studio.path])
        try Fixture.run("metaflac", ["--set-tag=DISCSUBTITLE=Studio Takes", plain.path])
        // A later mtime for certain: metaflac may keep the size (padding), and the stamp is size and mtime.
        for file in [studio, plain] {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
        }
        let rescan = try runtime.library.rescan()
        #expect(rescan.updated == 2 && rescan.imported == 0 && rescan.unchanged == 2, "\(rescan)")
        #expect(try shown() == ["1 Studio One: -", "1 Studio Two: Studio Takes", "2 Live One: The Live Set",
                                "3 Bonus One: Bonus Disc"])
    }
}
