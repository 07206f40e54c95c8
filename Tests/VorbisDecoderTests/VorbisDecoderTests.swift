import CrateDomain
import CrateTestSupport
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
        let samples = try DecoderChecks.decodeAll(decoder)
        #expect(samples.count == frames * channels)
        let left = SignalAnalysis.channel(0, of: samples, channels: channels)
        #expect(abs(SignalAnalysis.rms(samples) - 0.3535) < 0.02)
        #expect(abs((SignalAnalysis.dominantFrequency(left, sampleRate: 44100) ?? 0) - 440) < 2)
        let source = DecoderChecks.sourceFloats(frames: frames, channels: channels)
        #expect(DecoderChecks.correlation(samples, source) > 0.99)
        #expect(samples.allSatisfy { $0 >= -1 && $0 <= 1 })
        for bufferFrames in [1, 1000] {
            let again = try DecoderChecks.decodeAll(try plugin.open(file), bufferFrames: bufferFrames)
            #expect(DecoderChecks.firstMismatch(again, samples) == nil, "buffer of \(bufferFrames) frames")
        }
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = try DecoderChecks.makeBadFile(kind, from: good)
        let reason: String = switch kind {
        case .empty: "file is empty"
        case .random: "not an Ogg Vorbis stream"
        case .truncated: "truncated"
        case .missing: "no such file"
        }
        let probeError = #expect(throws: DecodeError.self) { try plugin.probe(bad) }
        #expect(probeError?.path == bad.path)
        #expect(probeError?.reason.hasPrefix(reason) == true, "\(String(describing: probeError))")
        let decodeError = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(bad)) }
        #expect(decodeError?.reason.hasPrefix(reason) == true, "\(String(describing: decodeError))")
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

    /// A chained file (links appended one after another) is one track: the links' lengths add up exactly,
    /// and a link with another channel count is an error rather than scrambled audio.
    @Test func decodesChainedLinks() throws {
        let dir = try Fixture.temporaryDirectory("vorbis-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        func link(_ name: String, channels: Int) throws -> Data {
            try Data(contentsOf: try Fixture.encode(.vorbis, to: dir.appendingPathComponent("\(name).ogg"), frames: 10_000,
                                                     sampleRate: 44100, channels: channels))
        }
        let first = try link("a", channels: 2), second = try link("b", channels: 2), mono = try link("m", channels: 1)
        let chained = dir.appendingPathComponent("chained.ogg"), mixed = dir.appendingPathComponent("mixed.ogg")
        try (first + second).write(to: chained)
        try (first + mono).write(to: mixed)

        #expect(try plugin.probe(chained).info.frames == 20_000)
        #expect(try DecoderChecks.decodeAll(try plugin.open(chained)).count == 20_000 * 2)
        let error = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(mixed)) }
        #expect(error?.reason.contains("chained stream changes") == true, "\(String(describing: error))")
    }
}
