import CrateDomain
import CrateTestSupport
import Foundation
import Testing
@testable import WAVFileOutput

@Suite struct WAVFileOutputTests {
    let folder: URL

    init() throws {
        folder = try Fixture.temporaryDirectory("crate-wav-out")
    }

    /// A signal that catches byte-order, scaling and off-by-one errors: the extremes, signed zero,
    /// subnormals, then deterministic pseudo-random values in [-1, 1].
    static func signal(samples count: Int) -> [Float] {
        var out: [Float] = [1, -1, 0, -0.0, .leastNonzeroMagnitude, -.leastNormalMagnitude, 1e-30, 0.5]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        while out.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out.append(Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max))
        }
        return Array(out.prefix(count))
    }

    /// Decodes with ffmpeg (an independent reader) to raw float32 little-endian.
    static func decodeWithFFmpeg(_ url: URL) throws -> [Float] {
        let raw = url.deletingPathExtension().appendingPathExtension("raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", url.path,
                                   "-f", "f32le", "-c:a", "pcm_f32le", raw.path])
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count - 3, by: 4).map {
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt32.self)))
            }
        }
    }

    /// soxi's view of the header: rate, channels, samples per channel, bits, encoding.
    static func soxi(_ url: URL) throws -> (rate: Int, channels: Int, frames: Int, bits: Int, encoding: String) {
        func field(_ flag: String) throws -> String {
            try Fixture.run("soxi", [flag, url.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (Int(try field("-r")) ?? -1, Int(try field("-c")) ?? -1, Int(try field("-s")) ?? -1,
                Int(try field("-b")) ?? -1, try field("-e"))
    }

    /// The first index where the two differ bit for bit (or the shorter length), nil when identical;
    /// reported instead of whole arrays so a failure stays readable.
    static func firstDifference(_ a: [Float], _ b: [Float]) -> Int? {
        if let i = (0..<min(a.count, b.count)).first(where: { a[$0].bitPattern != b[$0].bitPattern }) { return i }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    static func write(_ samples: ArraySlice<Float>, to output: any AudioOutput) throws {
        try samples.withUnsafeBufferPointer { try output.write($0) }
    }

    /// Paced by default, as a sound card plays: a second of audio is not written (and drained) in less than a second,
    /// and what is written is still exactly what was given. (The upper side of the pace is measured in Benchmarks/.)
    @Test func keepsTimeByDefaultAndStaysExact() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("paced.wav")
        let output = try WAVFileOutputPlugin(path: url).makeOutput()
        let samples = Self.signal(samples: 44100 * 2)
        let started = ContinuousClock.now
        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        for at in stride(from: 0, to: samples.count, by: 8820) { try Self.write(samples[at..<min(at + 8820, samples.count)], to: output) }
        try output.drain()
        let took = ContinuousClock.now - started
        output.close()
        #expect(took >= .milliseconds(1000), "1 s of audio took \(took)")
        let decoded = try Self.decodeWithFFmpeg(url)
        #expect(decoded.count == samples.count && Self.firstDifference(decoded, samples) == nil)
    }

    @Test func roundTripIsExactAndHeaderIsRight() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        let plugin = WAVFileOutputPlugin(path: url, render: true)
        #expect(plugin.name == "wav")
        let output = try plugin.makeOutput()
        #expect(output.destination == url.path)

        let frames = 50_000
        let samples = Self.signal(samples: frames * 2)
        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        // Uneven pieces: tiny ones through the buffer, one above its 64 KiB, a frame at a time.
        var at = 0
        for piece in [1, 7, 1000, 20_000, 3, 1, 12_000] {
            try Self.write(samples[at..<at + piece * 2], to: output)
            at += piece * 2
        }
        try Self.write(samples[at...], to: output)
        try output.drain()
        output.close()

        let decoded = try Self.decodeWithFFmpeg(url)
        #expect(decoded.count == samples.count)
        #expect(Self.firstDifference(decoded, samples) == nil)

        let info = try Self.soxi(url)
        #expect(info.rate == 44100)
        #expect(info.channels == 2)
        #expect(info.frames == frames)
        #expect(info.bits == 32)
        #expect(info.encoding.contains("Floating Point"))
        let probe = try Fixture.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels",
                                                "-of", "default=nw=1", url.path])
        #expect(probe.contains("codec_name=pcm_f32le"))
        #expect(probe.contains("sample_rate=44100"))
        #expect(probe.contains("channels=2"))

        // The fixed header: format tag 3, cbSize 0, fact = frames, data and RIFF sizes.
        let data = try Data(contentsOf: url)
        func u32(_ o: Int) -> Int { Int(data[o]) | Int(data[o + 1]) << 8 | Int(data[o + 2]) << 16 | Int(data[o + 3]) << 24 }
        func u16(_ o: Int) -> Int { Int(data[o]) | Int(data[o + 1]) << 8 }
        #expect(data.count == 58 + frames * 8)
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF")
        #expect(u32(4) == data.count - 8)
        #expect(u16(20) == 3)
        #expect(u16(36) == 0)
        #expect(String(decoding: data[38..<42], as: UTF8.self) == "fact")
        #expect(u32(46) == frames)
        #expect(String(decoding: data[50..<54], as: UTF8.self) == "data")
        #expect(u32(54) == frames * 8)
    }

    /// After a drain the file is complete even though the output stays open (as if the process stopped).
    @Test func fileIsValidAfterDrainWithoutClose() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("live.wav")
        let output = try WAVFileOutputPlugin(path: url, render: true).makeOutput()
        try output.open(PCMFormat(sampleRate: 48000, channels: 1))
        let samples = Self.signal(samples: 12_345)
        try Self.write(samples[...], to: output)
        try output.drain()
        #expect(try Self.soxi(url).frames == 12_345)
        #expect(Self.firstDifference(try Self.decodeWithFFmpeg(url), samples) == nil)

        try Self.write(samples[..<100], to: output)
        try output.drain()
        #expect(try Self.soxi(url).frames == 12_445)
        output.close()
    }

    @Test func formatChangeStartsNumberedFiles() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        let output = try WAVFileOutputPlugin(path: url, render: true).makeOutput()
        let stereo = PCMFormat(sampleRate: 44100, channels: 2), mono = PCMFormat(sampleRate: 48000, channels: 1)
        let samples = Self.signal(samples: 2000)

        try output.open(stereo)
        try Self.write(samples[..<1000], to: output)          // 500 frames
        try output.open(stereo)                               // same format: same file
        try Self.write(samples[..<200], to: output)           // +100 frames
        #expect(output.destination == url.path)

        try output.open(mono)
        let second = folder.appendingPathComponent("out.2.wav")
        #expect(output.destination == second.path)
        try Self.write(samples[..<300], to: output)
        output.close()
        // After close, the same format continues the current file.
        try output.open(mono)
        #expect(output.destination == second.path)
        try Self.write(samples[..<50], to: output)

        try output.open(stereo)                               // back to stereo: yet another file
        let third = folder.appendingPathComponent("out.3.wav")
        #expect(output.destination == third.path)
        try Self.write(samples[..<20], to: output)
        output.close()

        let a = try Self.soxi(url), b = try Self.soxi(second), c = try Self.soxi(third)
        #expect(a.rate == 44100 && a.channels == 2 && a.frames == 600)
        #expect(b.rate == 48000 && b.channels == 1 && b.frames == 350)
        #expect(c.rate == 44100 && c.channels == 2 && c.frames == 10)
        #expect(Self.firstDifference(try Self.decodeWithFFmpeg(second), Array(samples[..<300] + samples[..<50])) == nil)
    }

    /// Past the RIFF size limit a file continues in the next numbered one; the limit is lowered here.
    @Test func sizeLimitRollsOverToNextFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("big.wav")
        let output = WAVFileAudioOutput(path: url, maxDataBytes: 1000 * 8 + 5)
        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        let samples = Self.signal(samples: 2 * 2500)
        try Self.write(samples[...], to: output)
        output.close()
        let names = ["big.wav", "big.2.wav", "big.3.wav"].map { folder.appendingPathComponent($0) }
        #expect(try names.map { try Self.soxi($0).frames } == [1000, 1000, 500])
        let joined = try names.flatMap { try Self.decodeWithFFmpeg($0) }
        #expect(Self.firstDifference(joined, samples) == nil)
    }

    @Test func checkStatus() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(WAVFileOutputPlugin(path: folder.appendingPathComponent("out.wav"), render: true).checkStatus() == .available)

        // A folder that does not exist yet is fine: open creates it.
        let nested = folder.appendingPathComponent("a/b/out.wav")
        #expect(WAVFileOutputPlugin(path: nested, render: true).checkStatus() == .available)
        let output = try WAVFileOutputPlugin(path: nested, render: true).makeOutput()
        try output.open(PCMFormat(sampleRate: 8000, channels: 1))
        output.close()
        #expect(FileManager.default.fileExists(atPath: nested.path))

        // A "folder" that is a regular file cannot hold the output.
        let file = folder.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let blocked = WAVFileOutputPlugin(path: file.appendingPathComponent("sub/out.wav"), render: true)
        let reason = try #require(blocked.checkStatus().reason)
        #expect(reason.contains(file.path))
        #expect(reason.contains("not a folder"))
        #expect(throws: OutputError.self) {
            try blocked.makeOutput().open(PCMFormat(sampleRate: 44100, channels: 2))
        }

        let isFolder = WAVFileOutputPlugin(path: folder, render: true).checkStatus()
        #expect(isFolder.reason?.contains("is a folder") == true)
    }
}
