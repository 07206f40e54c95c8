import CrateDomain
import CrateTestSupport
import Foundation

/// Files for the FFmpeg decoder's tests, made at test time by ffmpeg from sources written here: ALAC and AAC in
/// M4A, raw AAC (ADTS), WavPack and WMA. Nothing is mocked.
enum FFmpegFixture {
    enum Format: String, CaseIterable, Sendable, CustomStringConvertible {
        /// ALAC in M4A (ffmpeg puts the index, the moov box, at the end).
        case alac
        /// AAC-LC 192 kb/s in M4A with the index at the end, as ffmpeg writes it by default.
        case aac
        /// The same with the index first (`-movflags +faststart`), as files made for streaming are.
        case aacFastStart
        /// The same without noise coding (PNS), whose bands FFmpeg's decoder fills from a random generator.
        case aacWithoutNoiseCoding
        /// AAC in MP4 without an edit list, its encoder delay and padding only in an iTunSMPB tag (as iTunes writes);
        /// without noise coding.
        case aacITunSMPB
        /// Raw AAC in ADTS frames, as internet radio sends it.
        case adts
        case wavpack
        case wma

        var description: String { rawValue }

        var suffix: String {
            switch self {
            case .alac, .aac, .aacFastStart, .aacWithoutNoiseCoding: "m4a"
            case .aacITunSMPB: "mp4"
            case .adts: "aac"
            case .wavpack: "wv"
            case .wma: "wma"
            }
        }

        var arguments: [String] {
            switch self {
            case .alac: ["-c:a", "alac"]
            case .aac: ["-c:a", "aac", "-b:a", "192k"]
            case .aacFastStart: ["-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart"]
            case .aacWithoutNoiseCoding: ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0"]
            case .aacITunSMPB: ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-use_editlist", "0", "-movflags", "use_metadata_tags"]
            case .adts: ["-c:a", "aac", "-b:a", "192k", "-f", "adts"]
            case .wavpack: ["-c:a", "wavpack"]
            case .wma: ["-c:a", "wmav2", "-b:a", "192k"]
            }
        }
    }

    /// Encodes `source` (a WAV file) as `format` with ffmpeg, tagged with `tags` and with `pictures` attached.
    @discardableResult
    static func encode(_ source: URL, as format: Format, to url: URL, tags: [String: String] = [:],
                       pictures: [URL] = [], frames: Int? = nil) throws -> URL {
        var args = ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path]
        for picture in pictures { args += ["-i", picture.path] }
        args += ["-map", "0:a"]
        for i in pictures.indices { args += ["-map", "\(i + 1):v"] }
        args += ["-map_metadata", "-1"] + format.arguments
        if !pictures.isEmpty { args += ["-c:v", "copy", "-disposition:v", "attached_pic"] }
        if format == .aacITunSMPB, let frames {
            // ffmpeg's AAC encoder: 1024 samples of delay, padding to whole 1024-sample frames plus one more.
            let padding = (1024 - (frames + 1024) % 1024) % 1024 + 1024
            args += ["-metadata", String(format: "iTunSMPB= 00000000 %08X %08X %016llX", 1024, padding, UInt64(frames))]
        }
        for (k, v) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(k)=\(v)"] }
        args.append(url.path)
        try Fixture.run("ffmpeg", args)
        return url
    }

    /// The test sine (440 Hz, amplitude 0.5, 16-bit) of `frames` frames starting at `offset`, encoded as `format`.
    @discardableResult
    static func sine(_ format: Format, in dir: URL, name: String = "sine", frames: Int, channels: Int = 2, offset: Int = 0,
                     tags: [String: String] = [:], pictures: [URL] = []) throws -> URL {
        let source = dir.appendingPathComponent(".src-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: source) }
        try Fixture.writeWAV(Fixture.sine(frames: frames, channels: channels, offset: offset), sampleRate: 44100,
                             channels: channels, to: source)
        return try encode(source, as: format, to: dir.appendingPathComponent("\(name).\(format.suffix)"), tags: tags,
                          pictures: pictures, frames: frames)
    }

    /// A 24-bit source: a sine with noise in its low bits, so every one of the 24 bits is exercised.
    static func samples24(frames: Int, channels: Int) -> [Int32] {
        var noise = SplitMix64(seed: 24)
        var out = [Int32](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = 0.5 * sin(2 * Double.pi * 440 * Double(i) / 44100)
            for c in 0..<channels {
                let dither = Int32(truncatingIfNeeded: noise.next() & 0xFF) - 128
                out[i * channels + c] = max(-8_388_608, min(8_388_607, Int32((v * 8_388_607).rounded()) + dither * Int32(c + 1)))
            }
        }
        return out
    }

    /// Writes a 24-bit PCM WAV.
    static func writeWAV24(_ samples: [Int32], sampleRate: Int, channels: Int, to url: URL) throws {
        var payload = Data(capacity: samples.count * 3)
        for s in samples {
            let v = UInt32(bitPattern: s)
            payload.append(contentsOf: [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)])
        }
        try Fixture.writePCMWAV(payload, bitsPerSample: 24, sampleRate: sampleRate, channels: channels, to: url)
    }

    /// What ffmpeg's own command line decodes `file` to (interleaved float), for comparison.
    static func ffmpegDecode(_ file: URL) throws -> [Float] {
        let out = file.deletingLastPathComponent().appendingPathComponent(".ref-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: out) }
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", file.path, "-f", "f32le", out.path])
        let data = try Data(contentsOf: out)
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// Overwrites the 32-bit big-endian field `offset` bytes after the first `box` type code in `file`.
    static func patchBox(_ file: URL, box: String, offset: Int, value: UInt32) throws {
        var data = try Data(contentsOf: file)
        guard let range = data.range(of: Data(box.utf8)) else { throw Fixture.ToolError(description: "no \(box) box") }
        let at = range.lowerBound + 4 + offset
        withUnsafeBytes(of: value.bigEndian) { data.replaceSubrange(at..<at + 4, with: $0) }
        try data.write(to: file)
    }

    static func readBox(_ file: URL, box: String, offset: Int) throws -> UInt32 {
        let data = try Data(contentsOf: file)
        guard let range = data.range(of: Data(box.utf8)) else { throw Fixture.ToolError(description: "no \(box) box") }
        let at = range.lowerBound + 4 + offset
        return data[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
