import CrateDomain
import CrateTestSupport
import Foundation
import MP3Decoder
import Testing

@Suite struct MP3DecoderTests {
    let plugin = MP3DecoderPlugin()
    let frames = 100_000

    /// A tagged 192 kb/s MP3 of the 440 Hz sine with ffmpeg's LAME header (encoder delay and padding);
    /// the caller removes the directory.
    func fixture(sampleRate: Int = 44100, channels: Int = 2,
                 tags: [String: String] = DecoderChecks.tags) throws -> (dir: URL, file: URL) {
        let dir = try Fixture.temporaryDirectory("mp3-test")
        let file = try Fixture.encode(.mp3, to: dir.appendingPathComponent("sine.mp3"), frames: frames,
                                      sampleRate: sampleRate, channels: channels, tags: tags)
        return (dir, file)
    }

    @Test func describesItself() {
        #expect(plugin.name == "mp3")
        #expect(plugin.suffixes == ["mp3"])
        #expect(plugin.mimeTypes.contains("audio/mpeg"))
        #expect(plugin.status.isAvailable)
    }

    /// Gapless: the LAME header's delay and padding are removed, so the length is the source's exactly
    /// (without it, mpg123 would give 88 whole MPEG frames, 101376).
    @Test(arguments: [(44100, 2), (22050, 1)])
    func probeAndDecodeGiveTheExactLength(sampleRate: Int, channels: Int) throws {
        let (dir, file) = try fixture(sampleRate: sampleRate, channels: channels)
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = StreamInfo(codec: "mp3", sampleRate: sampleRate, channels: channels, bitsPerSample: nil,
                                  frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        #expect(try DecoderChecks.decodeAll(decoder).count == frames * channels)
    }

    /// ID3v2.3 text frames, including TXXX through its description.
    @Test func readsTheTags() throws {
        var tags = DecoderChecks.tags
        tags["MusicBrainz Album Id"] = "8d1a2a7e-5a34-4a0e-9a44-6f0c3a1f2b11"
        let (dir, file) = try fixture(tags: tags)
        defer { try? FileManager.default.removeItem(at: dir) }
        var expected = DecoderChecks.expectedTags
        expected.musicBrainzAlbumID = "8d1a2a7e-5a34-4a0e-9a44-6f0c3a1f2b11"
        #expect(try plugin.probe(file).tags == expected)
    }

    /// Issue 16, item 3: an ID3v2.4 TCON frame with several zero-separated values keeps them all (mpg123 hands
    /// them over in one string; only the first was read).
    @Test func keepsEveryGenreValue() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](try Data(contentsOf: file))
        #expect(bytes.starts(with: Array("ID3".utf8)))
        let old = 10 + (Int(bytes[6]) << 21 | Int(bytes[7]) << 14 | Int(bytes[8]) << 7 | Int(bytes[9]))
        func syncsafe(_ n: Int) -> [UInt8] { [n >> 21, n >> 14, n >> 7, n].map { UInt8($0 & 0x7F) } }
        func frame(_ id: String, _ text: String) -> [UInt8] {
            let body = [3] + Array(text.utf8)
            return Array(id.utf8) + syncsafe(body.count) + [0, 0] + body
        }
        let frames = frame("TIT2", "Multi") + frame("TCON", "Disco\u{0}Funk\u{0}(17)")
        bytes.replaceSubrange(0..<old, with: Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames)
        try Data(bytes).write(to: file)
        let tags = try plugin.probe(file).tags
        #expect(tags.title == "Multi" && tags.genre == "Disco; Funk; Rock", "\(tags)")
    }

    /// ID3v1 at the end of the file fills what ID3v2 lacks, and never overrides it.
    @Test func fallsBackToID3v1() throws {
        let (dir, file) = try fixture(tags: ["title": "From ID3v2"])
        defer { try? FileManager.default.removeItem(at: dir) }
        func field(_ text: String, _ width: Int) -> [UInt8] {
            let bytes = Array(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }.prefix(width))
            return bytes + [UInt8](repeating: 0, count: width - bytes.count)
        }
        // "TAG", title, artist, album, year, 28-byte comment, 0, track (ID3v1.1), genre 17 = Rock.
        var v1 = Array("TAG".utf8) + field("From ID3v1", 30) + field("Artïst One", 30) + field("Album One", 30)
        v1 += Array("1999".utf8) + field("", 28) + [0, 7, 17]
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(v1))
        try handle.close()

        let probed = try plugin.probe(file)
        #expect(probed.tags == TrackTags(title: "From ID3v2", artist: "Artïst One", album: "Album One", genre: "Rock",
                                         date: "1999", trackNumber: 7))
        #expect(probed.info.frames == Int64(frames))
        #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
    }

    /// Lossy, so the check is the signal: level, pitch, and sample alignment with the source (which
    /// only holds if the encoder delay was removed exactly). Small and odd buffers give the same samples.
    /// Issue 16, item 8: an ID3v2 tag that declares more bytes than the file holds, followed by real audio, plays
    /// from its first frame (it was "no MPEG audio frames"); all the audio is there, and the length is exact.
    @Test func aTagSizePastTheEndIsSkippedToTheAudio() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](try Data(contentsOf: file))
        #expect(bytes.starts(with: Array("ID3".utf8)))
        let claimed = bytes.count * 2
        bytes.replaceSubrange(6..<10, with: [claimed >> 21, claimed >> 14, claimed >> 7, claimed].map { UInt8($0 & 0x7F) })
        let broken = dir.appendingPathComponent("broken-tag.mp3")
        try Data(bytes).write(to: broken)
        let original = try DecoderChecks.decodeAll(try plugin.open(file))
        let probed = try plugin.probe(broken)
        #expect(probed.info.frames == Int64(original.count / 2))
        #expect(try DecoderChecks.decodeAll(try plugin.open(broken)) == original)
    }

    @Test func samplesMatchTheSource() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectLossyMatch(plugin, file: file, source: DecoderChecks.sourceFloats(frames: frames), sampleRate: 44100)
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectRefusal(plugin, kind, from: good, random: "not an MP3 stream")
    }

    /// mpg123 resyncs over junk, so noise must not pass for MPEG audio whatever the bytes are.
    @Test(arguments: 1...20)
    func refusesRandomBytes(seed: Int) throws {
        let dir = try Fixture.temporaryDirectory("mp3-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("noise.mp3")
        try DecoderChecks.randomBytes(count: 4096, seed: UInt64(seed)).write(to: file)
        #expect(throws: DecodeError.self) { try plugin.probe(file) }
        #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(file)) }
    }

    /// mpg123 lands on the exact frame, and with enough frames decoded before the target (bit reservoir,
    /// filterbank overlap) gives the straight decode's samples. Measured: identical at 192 and 32 kb/s and
    /// VBR; at 8 kb/s mono identical but for float rounding (9e-8). With mpg123's default of 4 frames
    /// decoded before, 32 and 8 kb/s differ by up to 0.57.
    @Test(arguments: [["-b:a", "192k"], ["-b:a", "32k"], ["-b:a", "8k", "-ar", "22050", "-ac", "1"], ["-q:a", "9"]])
    func seeksToTheExactFrame(lame: [String]) throws {
        let dir = try Fixture.temporaryDirectory("mp3-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.wav"), file = dir.appendingPathComponent("signal.mp3")
        try Fixture.writeWAV(DecoderChecks.seekSignal(frames: frames, sampleRate: 44100, channels: 2), sampleRate: 44100, channels: 2, to: source)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-c:a", "libmp3lame"] + lame + [file.path])
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file, tolerance: 1e-6)
    }
}
