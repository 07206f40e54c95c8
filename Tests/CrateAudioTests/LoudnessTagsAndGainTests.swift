import CrateAudio
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import MP3Decoder
import OpusDecoder
import Testing
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// Issue 17 item 5: every decoder reads the loudness tags through its own library (metaflac's and ffmpeg's tags,
/// as taggers write them), and the engine applies each item's gain from its first sample to its last.
@Suite struct LoudnessTagsAndGainTests {
    let dir: URL
    let decoders: DecoderRegistry

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-loudness-tags")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), VorbisDecoderPlugin(), OpusDecoderPlugin(), MP3DecoderPlugin(),
                                        WAVDecoderPlugin()])
    }

    static let replayGain = ["REPLAYGAIN_TRACK_GAIN": "-7.25 dB", "REPLAYGAIN_TRACK_PEAK": "0.812345",
                             "REPLAYGAIN_ALBUM_GAIN": "-8.50 dB", "REPLAYGAIN_ALBUM_PEAK": "0.934"]
    static let expected = ReplayGainTags(trackGain: -7.25, trackPeak: 0.812345, albumGain: -8.5, albumPeak: 0.934)

    /// FLAC with Vorbis comments written by metaflac (the FLAC tools' own tagger).
    @Test func flacReadsReplayGainCommentsWrittenByMetaflac() throws {
        let file = try Fixture.encode(.flac, to: dir.appendingPathComponent("rg.flac"), frames: 4410)
        try Fixture.run("metaflac", Self.replayGain.sorted { $0.key < $1.key }.map { "--set-tag=\($0.key)=\($0.value)" } + [file.path])
        #expect(try FLACDecoderPlugin().probe(file).tags.replayGain == Self.expected)
        #expect(try decoders.probe(file).tags.replayGain == Self.expected)
    }

    /// Ogg Vorbis comments, as ffmpeg (and vorbisgain, rsgain) write them.
    @Test func vorbisReadsReplayGainComments() throws {
        let file = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("rg.ogg"), frames: 4410, tags: Self.replayGain)
        #expect(try VorbisDecoderPlugin().probe(file).tags.replayGain == Self.expected)
    }

    /// ID3v2 `TXXX:REPLAYGAIN_*` frames in MP3, through libmpg123's ID3 reader.
    @Test func mp3ReadsReplayGainUserTextFrames() throws {
        let file = try Fixture.encode(.mp3, to: dir.appendingPathComponent("rg.mp3"), frames: 4410, tags: Self.replayGain)
        #expect(try MP3DecoderPlugin().probe(file).tags.replayGain == Self.expected)
    }

    /// Opus R128 gains (RFC 7845 §5.2.1), Q7.8 towards −23 LUFS: +5 dB to the ReplayGain reference. A REPLAYGAIN_*
    /// comment beside them (the RFC says not to write one) does not override them.
    @Test func opusReadsR128GainsConverted() throws {
        let file = try Fixture.encode(.opus, to: dir.appendingPathComponent("r128.opus"), frames: 4800, sampleRate: 48000,
                                      tags: ["R128_TRACK_GAIN": "-1234", "R128_ALBUM_GAIN": "-2000",
                                             "REPLAYGAIN_TRACK_GAIN": "+3.00 dB"])
        let rg = try #require(try OpusDecoderPlugin().probe(file).tags.replayGain)
        #expect(rg.trackGain == -1234.0 / 256 + 5)
        #expect(rg.albumGain == -2000.0 / 256 + 5)
        #expect(rg.trackPeak == nil && rg.albumPeak == nil)
    }

    /// WAV with an `id3 ` chunk (as Picard and Mp3tag write it): the ID3v2 tag ffmpeg wrote into an MP3, moved into
    /// a WAV file's chunk.
    @Test func wavReadsReplayGainFromItsID3Chunk() throws {
        let mp3 = try Fixture.encode(.mp3, to: dir.appendingPathComponent("tag.mp3"), frames: 1152, tags: Self.replayGain)
        let bytes = try Data(contentsOf: mp3)
        let size = Int(bytes[6] & 0x7F) << 21 | Int(bytes[7] & 0x7F) << 14 | Int(bytes[8] & 0x7F) << 7 | Int(bytes[9] & 0x7F)
        var tag = bytes.prefix(10 + size)
        if tag.count % 2 == 1 { tag.append(0) }
        let plain = try Fixture.encode(.wav, to: dir.appendingPathComponent("plain.wav"), frames: 4410)
        var wav = try Data(contentsOf: plain)
        wav.append(contentsOf: Array("id3 ".utf8))
        withUnsafeBytes(of: UInt32(tag.count).littleEndian) { wav.append(contentsOf: $0) }
        wav.append(tag)
        wav.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(wav.count - 8).littleEndian) { Data($0) })
        let file = dir.appendingPathComponent("rg.wav")
        try wav.write(to: file)
        #expect(try WAVDecoderPlugin().probe(file).tags.replayGain == Self.expected)
    }

    /// Two items of one continuous signal with gains 0.5 and 0.25: every sample is the source times its own item's
    /// gain, exactly, the step falling on the border's first sample (no ramp across it).
    @Test(.promptly) func itemGainsChangeExactlyAtTheBorder() async throws {
        let lengths = [30_011, 20_000]
        var offset = 0
        let files = try lengths.enumerated().map { i, n in
            defer { offset += n }
            return try Fixture.encode(.flac, to: dir.appendingPathComponent("g\(i).flac"), frames: n, offset: offset)
        }
        let out = dir.appendingPathComponent("gains.wav")
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders) { try plugin.makeOutput() }
        let gains: [Float] = [0.5, 0.25]
        let items = files.enumerated().map { i, url in
            EngineItem(token: UInt64(i + 1), entryID: Int64(i + 1), trackID: Int64(i + 1), url: url, gain: gains[i])
        }
        engine.play(items[0])
        engine.setNext(items[1], after: 1)
        _ = try await engineEvents(engine) { event in
            if case .decoding(let item) = event, item.token == 2 { engine.setNext(nil, after: 2) }
            if case .idle = event { return true }
            return false
        }
        engine.shutdown()
        let rendered = try DecoderChecks.decodeAll(try decoders.open(out))
        let source = DecoderChecks.sourceFloats(frames: lengths.reduce(0, +))
        let border = lengths[0] * 2
        let expected = source.enumerated().map { i, s in s * (i < border ? gains[0] : gains[1]) }
        #expect(rendered.count == expected.count)
        #expect(DecoderChecks.firstMismatch(rendered, expected) == nil)
    }
}
