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

/// The mono/stereo fast path (`OpusAudioDecoder(url:fastPath:)`, see COpusFile/shim.h) decodes with
/// opusfile's single-stream decoder instead of its multistream one: the samples must be bit for bit those
/// of opusfile's default path, straight through, after seeks, across links and with a header gain; files
/// with several Opus streams must not take it.
@Suite struct OpusFastPathTests {
    /// An Opus file of the seek test signal (different channels, noise, clicks) with `channels` channels,
    /// encoded by ffmpeg with `settings`.
    static func signalFile(in dir: URL, channels: Int, frames: Int = 150_000, settings: [String] = []) throws -> URL {
        let source = dir.appendingPathComponent("source-\(channels).wav")
        let file = dir.appendingPathComponent("signal-\(channels)-\(settings.joined()).opus")
        try Fixture.writeWAV(DecoderChecks.seekSignal(frames: frames, sampleRate: 48000, channels: channels),
                             sampleRate: 48000, channels: channels, to: source)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-c:a", "libopus", "-b:a", "96k"]
                        + settings + [file.path])
        return file
    }

    /// Exact equality, NaN included: compares the bit patterns.
    static func bits(_ samples: [Float]) -> [UInt32] { samples.map(\.bitPattern) }

    /// Decodes `file` to the end with and without the fast path; returns the fast path's samples and packet count.
    @discardableResult
    static func expectSameSamples(_ file: URL, fastPackets: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Float] {
        let fast = try OpusAudioDecoder(url: file), slow = try OpusAudioDecoder(url: file, fastPath: false)
        let a = try DecoderChecks.decodeAll(fast), b = try DecoderChecks.decodeAll(slow)
        #expect(a.count == b.count && !a.isEmpty, sourceLocation: sourceLocation)
        let same = bits(a) == bits(b)  // Not inside #expect, which would print both arrays on a failure.
        #expect(same, "first mismatch at \(String(describing: DecoderChecks.firstMismatch(a, b)))", sourceLocation: sourceLocation)
        #expect((fast.fastPathPackets > 0) == fastPackets, "\(fast.fastPathPackets) fast packets", sourceLocation: sourceLocation)
        #expect(slow.fastPathPackets == 0, sourceLocation: sourceLocation)
        return a
    }

    /// The sine fixture, stereo and mono.
    @Test(arguments: [2, 1])
    func sineFixture(channels: Int) throws {
        let dir = try Fixture.temporaryDirectory("opus-fast")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Fixture.encode(.opus, to: dir.appendingPathComponent("sine.opus"), frames: 100_000,
                                      sampleRate: 48000, channels: channels)
        try Self.expectSameSamples(file, fastPackets: true)
    }

    /// CELT at 96 and 16 kb/s, SILK speech at 12 kb/s, stereo through mapping family 1 (still one coupled
    /// stream, identity mapping), and 3 channels (two streams: the default path).
    static let signals: [(channels: Int, settings: [String], fast: Bool)] = [
        (2, [], true), (2, ["-b:a", "16k"], true), (1, [], true),
        (1, ["-b:a", "12k", "-ar", "16000", "-application", "voip"], true),
        (2, ["-mapping_family", "1"], true),
        (3, ["-channel_layout", "3.0"], false),
    ]

    @Test(arguments: signals)
    func signal(channels: Int, settings: [String], fast: Bool) throws {
        let dir = try Fixture.temporaryDirectory("opus-fast")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.signalFile(in: dir, channels: channels, settings: settings)
        #expect(try OpusAudioDecoder(url: file).info.channels == channels)
        try Self.expectSameSamples(file, fastPackets: fast)
    }

    /// After each seek (from fresh, backwards, forwards, several in a row) both paths give the same samples.
    @Test func seeks() throws {
        let dir = try Fixture.temporaryDirectory("opus-fast")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.signalFile(in: dir, channels: 2)
        let fast = try OpusAudioDecoder(url: file), slow = try OpusAudioDecoder(url: file, fastPath: false)
        for target: Int64 in [100_000, 0, 12_345, 140_000, 50_000, 149_999, 30_000] {
            for decoder in [fast, slow] {
                try decoder.seek(toFrame: target)
                try DecoderChecks.discard(decoder, frames: 3000)
            }
            try fast.seek(toFrame: target)
            try slow.seek(toFrame: target)
            let a = try DecoderChecks.decodeAll(fast), b = try DecoderChecks.decodeAll(slow)
            #expect(a.count == (150_000 - Int(target)) * 2)
            let same = Self.bits(a) == Self.bits(b)
            #expect(same, "after a seek to \(target): first mismatch at \(String(describing: DecoderChecks.firstMismatch(a, b)))")
        }
        #expect(fast.fastPathPackets > 0)
    }

    /// A chained file: each link's decoder state is opusfile's, reset or rebuilt by it at the link change.
    @Test func chainedLinks() throws {
        let dir = try Fixture.temporaryDirectory("opus-fast")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try Data(contentsOf: try Self.signalFile(in: dir, channels: 2, frames: 60_000))
        let second = try Data(contentsOf: try Fixture.encode(.opus, to: dir.appendingPathComponent("b.opus"), frames: 50_000,
                                                              sampleRate: 48000))
        // Encoded afresh (not `first` again), so that every link has its own serial number.
        let third = try Data(contentsOf: try Self.signalFile(in: dir, channels: 2, frames: 40_000))
        let chained = dir.appendingPathComponent("chained.opus")
        try (first + second + third).write(to: chained)
        #expect(try Self.expectSameSamples(chained, fastPackets: true).count == 150_000 * 2)
        let fast = try OpusAudioDecoder(url: chained), slow = try OpusAudioDecoder(url: chained, fastPath: false)
        for decoder in [fast, slow] { try decoder.seek(toFrame: 55_000) }  // into the first link, decoded on into the second
        let same = Self.bits(try DecoderChecks.decodeAll(fast)) == Self.bits(try DecoderChecks.decodeAll(slow))
        #expect(same, "after a seek to 55000")
    }

    /// The header's output gain (set here to -6 dB) is applied by opusfile through the decoder, so the
    /// fast path applies it too. The sine (amplitude 0.5), so that no sample is clamped.
    @Test func headerGain() throws {
        let dir = try Fixture.temporaryDirectory("opus-fast")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Fixture.encode(.opus, to: dir.appendingPathComponent("sine.opus"), frames: 48_000, sampleRate: 48000)
        let plain = try DecoderChecks.decodeAll(try OpusAudioDecoder(url: file, fastPath: false))
        var data = try Data(contentsOf: file)
        try Self.setOutputGain(-6 * 256, in: &data)
        let gained = dir.appendingPathComponent("gained.opus")
        try data.write(to: gained)
        let samples = try Self.expectSameSamples(gained, fastPackets: true)
        let peak = { (x: [Float]) in x.map(abs).max() ?? 0 }
        #expect(samples.count == plain.count && abs(peak(samples) / peak(plain) - 0.501) < 0.01)
    }

    /// Writes `gain` (Q7.8 dB) into the OpusHead packet on the first Ogg page and updates the page's CRC.
    static func setOutputGain(_ gain: Int16, in data: inout Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 27, bytes[0..<4].elementsEqual("OggS".utf8) else {
            throw DecoderChecks.Failure(description: "no Ogg page")
        }
        let segments = Int(bytes[26])
        let body = 27 + segments
        let pageEnd = body + bytes[27..<body].reduce(0) { $0 + Int($1) }
        guard pageEnd <= bytes.count, bytes[body..<body + 8].elementsEqual("OpusHead".utf8) else {
            throw DecoderChecks.Failure(description: "no OpusHead packet on the first page")
        }
        var page = Array(bytes[0..<pageEnd])
        page[body + 16] = UInt8(truncatingIfNeeded: gain)
        page[body + 17] = UInt8(truncatingIfNeeded: gain >> 8)
        page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
        // Ogg's CRC-32: polynomial 0x04C11DB7, initial 0, not reflected, stored little-endian.
        var crc: UInt32 = 0
        for byte in page {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        page.replaceSubrange(22..<26, with: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) })
        data.replaceSubrange(0..<pageEnd, with: page)
    }
}
