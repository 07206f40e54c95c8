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
        let samples = try DecoderChecks.decodeAll(try plugin.open(file))
        let left = SignalAnalysis.channel(0, of: samples, channels: 2)
        #expect(abs(SignalAnalysis.rms(samples) - 0.3535) < 0.02)
        #expect(abs((SignalAnalysis.dominantFrequency(left, sampleRate: 48000) ?? 0) - 440) < 2)
        #expect(DecoderChecks.correlation(samples, DecoderChecks.sourceFloats(frames: frames, sampleRate: 48000)) > 0.99)
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
        case .random: "not an Ogg Opus stream"
        case .truncated: "truncated"
        case .missing: "no such file"
        }
        let probeError = #expect(throws: DecodeError.self) { try plugin.probe(bad) }
        #expect(probeError?.path == bad.path)
        #expect(probeError?.reason.hasPrefix(reason) == true, "\(String(describing: probeError))")
        let decodeError = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(bad)) }
        #expect(decodeError?.reason.hasPrefix(reason) == true, "\(String(describing: decodeError))")
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

    /// A chained file (links appended one after another) is one track: the links' lengths add up exactly,
    /// and a link with another channel count is an error rather than scrambled audio.
    @Test func decodesChainedLinks() throws {
        let dir = try Fixture.temporaryDirectory("opus-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        func link(_ name: String, channels: Int) throws -> Data {
            try Data(contentsOf: try Fixture.encode(.opus, to: dir.appendingPathComponent("\(name).opus"), frames: 10_000,
                                                     sampleRate: 48000, channels: channels))
        }
        let first = try link("a", channels: 2), second = try link("b", channels: 2), mono = try link("m", channels: 1)
        let chained = dir.appendingPathComponent("chained.opus"), mixed = dir.appendingPathComponent("mixed.opus")
        try (first + second).write(to: chained)
        try (first + mono).write(to: mixed)

        #expect(try plugin.probe(chained).info.frames == 20_000)
        #expect(try DecoderChecks.decodeAll(try plugin.open(chained)).count == 20_000 * 2)
        let error = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(mixed)) }
        #expect(error?.reason.contains("chained stream changes") == true, "\(String(describing: error))")
    }
}
