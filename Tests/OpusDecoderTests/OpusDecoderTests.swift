import CrateDomain
import CrateTestSupport
import Foundation
import OpusDecoder
import Testing

@Suite struct OpusDecoderTests {
    let plugin = OpusDecoderPlugin()
    let frames = 100_000

    /// A tagged Opus file of the 440 Hz sine, from a 48 kHz source so that lengths compare 1:1;
    /// the caller removes the directory.
    func fixture(sampleRate: Int = 48000) throws -> (dir: URL, file: URL) {
        let dir = try Fixture.temporaryDirectory("opus-test")
        let file = try Fixture.encode(.opus, to: dir.appendingPathComponent("sine.opus"), frames: frames,
                                      sampleRate: sampleRate, tags: DecoderChecks.tags)
        return (dir, file)
    }

    @Test func describesItself() {
        #expect(plugin.name == "opus")
        #expect(plugin.suffixes == ["opus", "ogg", "oga"])
        #expect(plugin.mimeTypes.contains("audio/opus"))
        #expect(plugin.status.isAvailable)
    }

    /// opusfile removes the pre-skip and end trim: exactly the source's frames, at 48 kHz.
    @Test func probeAndDecodeGiveTheExactLength() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = StreamInfo(codec: "opus", sampleRate: 48000, channels: 2, bitsPerSample: nil, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        #expect(try DecoderChecks.decodeAll(decoder).count == frames * 2)
    }

    /// Opus always decodes at 48 kHz: a 44.1 kHz source comes out resampled, ⌈100000 · 48 / 44.1⌉ frames long.
    @Test func decodesAt48kHzWhateverTheSourceRate() throws {
        let (dir, file) = try fixture(sampleRate: 44100)
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoder = try plugin.open(file)
        #expect(decoder.info.sampleRate == 48000)
        #expect(decoder.info.frames == 108_844)
        #expect(try DecoderChecks.decodeAll(decoder).count == 108_844 * 2)
    }

    @Test func readsTheTags() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try plugin.probe(file).tags == DecoderChecks.expectedTags)
    }

    /// Lossy, so the check is the signal: level, pitch, and sample alignment with the source (which
    /// only holds if the pre-skip was removed exactly). Small and odd buffers give the same samples.
    @Test func samplesMatchTheSource() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectLossyMatch(plugin, file: file, source: DecoderChecks.sourceFloats(frames: frames, sampleRate: 48000),
                                           sampleRate: 48000)
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectRefusal(plugin, kind, from: good, random: "not an Ogg Opus stream")
    }

    /// Vorbis audio in an .opus file is a clear error, not garbage.
    @Test func refusesOggVorbis() throws {
        let dir = try Fixture.temporaryDirectory("opus-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ogg = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("vorbis.ogg"), frames: 4410)
        let file = dir.appendingPathComponent("vorbis.opus")
        try FileManager.default.moveItem(at: ogg, to: file)
        let error = #expect(throws: DecodeError.self) { try plugin.probe(file) }
        #expect(error?.reason == "not an Ogg Opus stream")
    }

    /// A chained file is one track; a link with another channel count is an error.
    @Test func decodesChainedLinks() throws {
        try DecoderChecks.expectChainedLinks(plugin, codec: .opus, sampleRate: 48000)
    }

    /// opusfile lands on the exact frame; the decoder's extra pre-roll makes the samples the straight
    /// decode's too. Measured: identical for music (CELT, 96 and 16 kb/s); speech (SILK, 12 kb/s) predicts
    /// from a longer history and differs by up to 0.004. Without the extra pre-roll all three differ by up
    /// to 0.14. 300 000 frames, so that most targets lie past the 1 s pre-roll.
    static let seekSettings: [(ffmpeg: [String], tolerance: Float)] = [
        ([], 1e-6), (["-b:a", "16k"], 1e-6), (["-b:a", "12k", "-ar", "16000", "-ac", "1", "-application", "voip"], 0.01),
    ]

    @Test(arguments: seekSettings)
    func seeksToTheExactFrame(settings: [String], tolerance: Float) throws {
        let dir = try Fixture.temporaryDirectory("opus-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.wav"), file = dir.appendingPathComponent("signal.opus")
        try Fixture.writeWAV(DecoderChecks.seekSignal(frames: 300_000, sampleRate: 48000, channels: 2), sampleRate: 48000, channels: 2, to: source)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-c:a", "libopus", "-b:a", "96k"]
                        + settings + [file.path])
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file, tolerance: tolerance)
    }
}
