import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import WAVDecoder

@Suite struct WAVDecoderTests {
    let plugin = WAVDecoderPlugin()
    let frames = 100_000

    /// A tagged 16-bit WAV of the 440 Hz sine written by ffmpeg (fmt, LIST/INFO, data); the caller removes the directory.
    func fixture() throws -> (dir: URL, file: URL) {
        let dir = try Fixture.temporaryDirectory("wav-test")
        let file = try Fixture.encode(.wav, to: dir.appendingPathComponent("sine.wav"), frames: frames, tags: DecoderChecks.tags)
        return (dir, file)
    }

    @Test func describesItself() {
        #expect(plugin.name == "wav")
        #expect(plugin.suffixes == ["wav", "wave"])
        #expect(plugin.mimeTypes.contains("audio/wav"))
        #expect(plugin.mimeTypes.contains("audio/x-wav"))
        #expect(plugin.status.isAvailable)
    }

    @Test func probeAndDecodeGiveTheExactLength() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = StreamInfo(codec: "wav", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        #expect(try DecoderChecks.decodeAll(decoder).count == frames * 2)
    }

    /// RIFF INFO has no album artist or disc fields (ffmpeg writes none, TagMapper maps none); the rest round-trips.
    @Test func readsTheTags() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        var expected = DecoderChecks.expectedTags
        expected.albumArtist = nil
        expected.discNumber = nil
        expected.discTotal = nil
        #expect(try plugin.probe(file).tags == expected)
    }

    /// Lossless: every sample is the generated Int16 / 32768, whatever the read size.
    @Test(arguments: [4096, 1, 1000])
    func samplesEqualTheSource(bufferFrames: Int) throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = try DecoderChecks.decodeAll(try plugin.open(file), bufferFrames: bufferFrames)
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: frames)) == nil)
    }

    /// Other sample formats as ffmpeg writes them (above 16 bits, as WAVE_FORMAT_EXTENSIBLE). The 16-bit
    /// source widened to 24/32 bits or float decodes to the same floats; 8-bit loses the low byte.
    @Test(arguments: [("pcm_u8", 8), ("pcm_s24le", 24), ("pcm_s32le", 32), ("pcm_f32le", 32), ("pcm_f64le", 64)])
    func decodesOtherSampleFormats(codec: String, bits: Int) throws {
        let dir = try Fixture.temporaryDirectory("wav-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("src.wav"), file = dir.appendingPathComponent("\(codec).wav")
        try Fixture.writeWAV(Fixture.sine(frames: 20_000), sampleRate: 44100, channels: 2, to: source)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-c:a", codec, file.path])
        let decoder = try plugin.open(file)
        #expect(decoder.info == StreamInfo(codec: "wav", sampleRate: 44100, channels: 2, bitsPerSample: bits, frames: 20_000))
        let samples = try DecoderChecks.decodeAll(decoder, bufferFrames: 999)
        let tolerance: Float = bits == 8 ? 1.0 / 128 : 0
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: 20_000), tolerance: tolerance) == nil)
    }

    /// Hand-built layouts ffmpeg does not write: plain (non-extensible) float and 24-bit, 24 valid bits
    /// in 32-bit containers, and an odd-sized chunk whose pad byte must be skipped.
    @Test func decodesHandBuiltLayouts() throws {
        let dir = try Fixture.temporaryDirectory("wav-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixture.sine(frames: 5000, channels: 1)
        let expected = DecoderChecks.sourceFloats(frames: 5000, channels: 1)
        let float32 = source.flatMap { le(UInt32((Float($0) / 32768).bitPattern), 4) }
        let int24 = source.flatMap { le(UInt32(bitPattern: Int32($0) << 8), 3) }
        let int24in32 = source.flatMap { le(UInt32(bitPattern: Int32($0) << 16), 4) }
        let cases: [(String, Data, Int)] = [
            ("float", wav(tag: 3, container: 32, samples: float32), 32),
            ("int24", wav(tag: 1, container: 24, samples: int24, junk: [1, 2, 3]), 24),
            ("ext24in32", wav(tag: 1, container: 32, validBits: 24, samples: int24in32), 24),
        ]
        for (name, data, bits) in cases {
            let file = dir.appendingPathComponent("\(name).wav")
            try data.write(to: file)
            let decoder = try plugin.open(file)
            #expect(decoder.info == StreamInfo(codec: "wav", sampleRate: 44100, channels: 1, bitsPerSample: bits, frames: 5000), "\(name)")
            #expect(DecoderChecks.firstMismatch(try DecoderChecks.decodeAll(decoder), expected) == nil, "\(name)")
        }
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reason: String = switch kind {
        case .empty: "file is empty"
        case .random: "not a WAV file"
        case .truncated: "truncated"
        case .missing: "no such file"
        }
        try expectRefused(try DecoderChecks.makeBadFile(kind, from: good), reason: reason)
    }

    /// A data size pointing far past the end is an error, not a huge allocation or a crash.
    @Test func refusesADataSizePastTheEnd() throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        for size: UInt32 in [0x7FFF_FFF0, 0xFFFF_FFFE, 400_001] {
            let file = try patchChunkSize("data", of: good, to: size)
            try expectRefused(file, reason: "truncated")
        }
    }

    /// Streaming writers leave 0xFFFFFFFF in the data size: that means "to the end of the file".
    @Test func readsAnUnknownDataSizeToTheEnd() throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try patchChunkSize("data", of: good, to: 0xFFFF_FFFF)
        #expect(try plugin.probe(file).info.frames == Int64(frames))
        let samples = try DecoderChecks.decodeAll(try plugin.open(file))
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: frames)) == nil)
    }

    /// A chunk before the audio whose size runs past the end of the file is refused.
    @Test func refusesAChunkSizePastTheEnd() throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try expectRefused(try patchChunkSize("LIST", of: good, to: 0xFFFF_FF00), reason: "truncated")
    }

    /// Compressed WAV payloads are named in the error rather than played as noise.
    @Test func refusesCompressedWAV() throws {
        let dir = try Fixture.temporaryDirectory("wav-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("src.wav"), file = dir.appendingPathComponent("adpcm.wav")
        try Fixture.writeWAV(Fixture.sine(frames: 4410), sampleRate: 44100, channels: 2, to: source)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-c:a", "adpcm_ms", file.path])
        try expectRefused(file, reason: "unsupported WAV encoding MS ADPCM")
    }

    // MARK: - Helpers

    private func expectRefused(_ file: URL, reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let probeError = #expect(throws: DecodeError.self, sourceLocation: sourceLocation) { try plugin.probe(file) }
        #expect(probeError?.path == file.path, sourceLocation: sourceLocation)
        #expect(probeError?.reason.hasPrefix(reason) == true, "\(String(describing: probeError))", sourceLocation: sourceLocation)
        let decodeError = #expect(throws: DecodeError.self, sourceLocation: sourceLocation) {
            _ = try DecoderChecks.decodeAll(try plugin.open(file))
        }
        #expect(decodeError?.reason.hasPrefix(reason) == true, "\(String(describing: decodeError))", sourceLocation: sourceLocation)
    }

    /// A copy of `file` with the size field of its first `id` chunk replaced.
    private func patchChunkSize(_ id: String, of file: URL, to size: UInt32) throws -> URL {
        var data = try Data(contentsOf: file)
        guard let range = data.range(of: Data(id.utf8), in: 12..<data.count) else {
            throw DecoderChecks.Failure(description: "no \(id) chunk in \(file.path)")
        }
        data.replaceSubrange(range.upperBound..<range.upperBound + 4, with: le(size, 4))
        let out = file.deletingLastPathComponent().appendingPathComponent("patched-\(id)-\(size).wav")
        try data.write(to: out)
        return out
    }

    private func le(_ value: UInt32, _ bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A mono 44.1 kHz WAV: `fmt ` (extensible when `validBits` is given), an optional odd-sized
    /// `junk` chunk, then `data`.
    private func wav(tag: UInt32, container: Int, validBits: Int? = nil, samples: [UInt8], junk: [UInt8]? = nil,
                     extra: [(String, [UInt8])] = []) -> Data {
        let blockAlign = UInt32(container / 8)
        var fmt = le(validBits == nil ? tag : 0xFFFE, 2) + le(1, 2) + le(44100, 4) + le(44100 * blockAlign, 4)
        fmt += le(blockAlign, 2) + le(UInt32(container), 2)
        if let validBits {
            // cbSize 22, valid bits, channel mask (front centre), then the sub-format GUID.
            fmt += le(22, 2) + le(UInt32(validBits), 2) + le(4, 4) + le(tag, 2)
            fmt += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + le(UInt32(body.count), 4) + body + (body.count % 2 == 1 ? [0] : [])
        }
        let body = Array("WAVE".utf8) + chunk("fmt ", fmt) + (junk.map { chunk("junk", $0) } ?? []) + chunk("data", samples)
            + extra.flatMap { chunk($0.0, $0.1) }
        return Data(Array("RIFF".utf8) + le(UInt32(body.count), 4) + body)
    }

    /// Issue 16, item 4: the `id3 ` chunk Picard, mutagen and Mp3tag write is read (only LIST/INFO was), in
    /// ID3v2.4 (UTF-8) and v2.3 (UTF-16 with a BOM); where a file has both, ID3 wins and INFO fills gaps. Every
    /// value of a multi-valued 2.4 genre is kept (item 3).
    @Test func readsTheID3Chunk() throws {
        func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        func be(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }
        func tag(version: UInt8, _ frames: [(String, [UInt8])]) -> [UInt8] {
            let body = frames.flatMap { id, b in Array(id.utf8) + (version == 4 ? syncsafe(b.count) : be(b.count)) + [0, 0] + b }
            return Array("ID3".utf8) + [version, 0, 0] + syncsafe(body.count + 16) + body + [UInt8](repeating: 0, count: 16)
        }
        func utf8(_ text: String) -> [UInt8] { [3] + Array(text.utf8) }
        func utf16(_ text: String) -> [UInt8] { [1, 0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        let v24 = tag(version: 4, [("TIT2", utf8("Ünïcode Song")), ("TPE1", utf8("Søren")), ("TALB", utf8("Nord")),
                                   ("TRCK", utf8("3/12")), ("TCON", utf8("Jazz\u{0}Bebop")),
                                   ("TXXX", utf8("ALBUMARTIST") + [0] + Array("Various Artists".utf8))])
        let v23 = tag(version: 3, [("TIT2", utf16("Wide Title")), ("TPE1", utf16("Ça va")), ("TPOS", utf16("2/2"))])
        let info = Array("INFO".utf8) + Array("INAM".utf8) + le(4, 4) + Array("Old\u{0}".utf8)
            + Array("ICRD".utf8) + le(6, 4) + Array("1999\u{0}\u{0}".utf8)
        let dir = try Fixture.temporaryDirectory("crate-wav-id3")
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = [UInt8](repeating: 0, count: 200)
        for (name, extra) in [("v24.wav", [("LIST", info), ("id3 ", v24)]), ("v23.wav", [("ID3 ", v23)])] {
            try wav(tag: 1, container: 16, samples: samples, extra: extra).write(to: dir.appendingPathComponent(name))
        }
        let a = try plugin.probe(dir.appendingPathComponent("v24.wav")).tags
        #expect(a.title == "Ünïcode Song" && a.artist == "Søren" && a.album == "Nord" && a.trackNumber == 3 && a.trackTotal == 12)
        #expect(a.albumArtist == "Various Artists" && a.genre == "Jazz; Bebop" && a.date == "1999", "\(a)")
        let b = try plugin.probe(dir.appendingPathComponent("v23.wav")).tags
        #expect(b.title == "Wide Title" && b.artist == "Ça va" && b.discNumber == 2 && b.discTotal == 2, "\(b)")
    }

    /// Lossless and sample-exact: after any seek the rest of the file is exactly the straight decode's.
    @Test func seeksToTheExactFrame() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file)
    }
}
