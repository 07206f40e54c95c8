import CrateDomain
import CrateTestSupport
import FFmpegSupport
import Foundation
import Testing
import VorbisDecoder

@Suite struct VorbisDecoderTests {
    let plugin = VorbisDecoderPlugin()
    let frames = 100_000

    /// A tagged Ogg Vorbis file of the 440 Hz sine at 44.1 kHz; the caller removes the directory.
    func fixture(channels: Int = 2) throws -> (dir: URL, file: URL) {
        let dir = try Fixture.temporaryDirectory("vorbis-test")
        let file = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("sine.ogg"), frames: frames,
                                      channels: channels, tags: DecoderChecks.tags)
        return (dir, file)
    }

    @Test func describesItself() {
        #expect(plugin.name == "vorbis")
        #expect(plugin.suffixes == ["ogg", "oga"])
        #expect(plugin.mimeTypes.contains("audio/ogg"))
        #expect(plugin.mimeTypes.contains("audio/vorbis"))
        #expect(plugin.status.isAvailable)
    }

    @Test func probeAndDecodeGiveTheExactLength() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = StreamInfo(codec: "vorbis", sampleRate: 44100, channels: 2, bitsPerSample: nil, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        #expect(try DecoderChecks.decodeAll(decoder).count == frames * 2)
    }

    @Test func readsTheTags() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try plugin.probe(file).tags == DecoderChecks.expectedTags)
    }

    /// Lossy, so the check is the signal: level, pitch, and sample alignment with the source.
    /// vorbisfile hands out planar channels; interleaving must survive small and odd buffers.
    @Test(arguments: [1, 2])
    func samplesMatchTheSource(channels: Int) throws {
        let (dir, file) = try fixture(channels: channels)
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoder = try plugin.open(file)
        #expect(decoder.info.channels == channels)
        #expect(try DecoderChecks.decodeAll(decoder).count == frames * channels)
        try DecoderChecks.expectLossyMatch(plugin, file: file, source: DecoderChecks.sourceFloats(frames: frames, channels: channels),
                                           sampleRate: 44100, channels: channels)
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectRefusal(plugin, kind, from: good, random: "not an Ogg Vorbis stream")
    }

    /// Opus in an .ogg file is refused with a reason, so the registry can try another decoder.
    @Test func refusesOggOpus() throws {
        let dir = try Fixture.temporaryDirectory("vorbis-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let opus = try Fixture.encode(.opus, to: dir.appendingPathComponent("opus.opus"), frames: 4800, sampleRate: 48000)
        let file = dir.appendingPathComponent("opus.ogg")
        try FileManager.default.moveItem(at: opus, to: file)
        let error = #expect(throws: DecodeError.self) { try plugin.probe(file) }
        #expect(error?.reason == "not an Ogg Vorbis stream")
    }

    /// A file of one link is decoded by FFmpeg's Vorbis decoder (twice libvorbis' speed); a chained file and a stream
    /// that cannot seek by vorbisfile, which follows links. The other tests here hold both to the same exactness.
    @Test func choosesTheDecoderByWhatTheStreamIs() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try plugin.open(file) is FFmpegAudioDecoder)
        let chained = dir.appendingPathComponent("chained.ogg")
        // A link of its own encode: Ogg links differ in their serial numbers.
        let second = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("second.ogg"), frames: frames)
        try (try Data(contentsOf: file) + Data(contentsOf: second)).write(to: chained)
        let decoder = try plugin.open(chained)
        #expect(!(decoder is FFmpegAudioDecoder))
        #expect(decoder.info.frames == Int64(2 * frames))
        let live = try plugin.open(stream: LiveStream(file))
        #expect(!(live is FFmpegAudioDecoder))
        #expect(try DecoderChecks.decodeAll(live).count == frames * 2)
    }

    /// A chained file is one track; a link with another channel count is an error.
    @Test func decodesChainedLinks() throws {
        try DecoderChecks.expectChainedLinks(plugin, codec: .vorbis, sampleRate: 44100)
    }

    /// vorbisfile decodes the packet before the target again, and a Vorbis packet depends on no other
    /// state than that overlap: after any seek the samples are exactly the straight decode's.
    @Test(arguments: [1, 2])
    func seeksToTheExactFrame(channels: Int) throws {
        let (dir, file) = try fixture(channels: channels)
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file)
    }
}
