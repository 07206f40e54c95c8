public import Foundation

/// Real encoded audio for tests, generated at test time: a sine wave written as a 16-bit WAV
/// by Swift, then encoded and tagged by ffmpeg. Nothing here is mocked.
public enum Fixture {
    public enum Codec: String, CaseIterable, Sendable {
        case wav, flac, mp3, vorbis, opus

        public var suffix: String {
            switch self {
            case .vorbis: "ogg"
            default: rawValue
            }
        }

        var ffmpegArguments: [String] {
            switch self {
            case .wav: ["-c:a", "pcm_s16le"]
            case .flac: ["-c:a", "flac"]
            // ffmpeg writes a LAME/Xing header by default: encoder delay and padding for gapless.
            case .mp3: ["-c:a", "libmp3lame", "-b:a", "192k", "-id3v2_version", "3"]
            case .vorbis: ["-c:a", "libvorbis", "-q:a", "4"]
            case .opus: ["-c:a", "libopus", "-b:a", "96k"]
            }
        }
    }

    public struct ToolError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// A fresh empty directory under the system temp dir; the caller removes it.
    public static func temporaryDirectory(_ label: String = "crate-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Interleaved 16-bit samples of a sine at `frequency` Hz and amplitude 0.5, starting at frame `offset`
    /// (so consecutive calls cut one continuous signal into pieces).
    public static func sine(frames: Int, sampleRate: Int = 44100, channels: Int = 2, frequency: Double = 440,
                            offset: Int = 0) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = 0.5 * sin(2 * Double.pi * frequency * Double(i + offset) / Double(sampleRate))
            let s = Int16((v * 32767).rounded())
            for c in 0..<channels { out[i * channels + c] = s }
        }
        return out
    }

    /// Writes a canonical 16-bit PCM WAV (no tags).
    public static func writeWAV(_ samples: [Int16], sampleRate: Int, channels: Int, to url: URL) throws {
        try writePCMWAV(samples.withUnsafeBytes { Data($0) }, bitsPerSample: 16, sampleRate: sampleRate, channels: channels, to: url)
    }

    /// Writes a canonical PCM WAV around `payload`: little-endian samples of `bitsPerSample`, interleaved.
    public static func writePCMWAV(_ payload: Data, bitsPerSample: Int, sampleRate: Int, channels: Int, to url: URL) throws {
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        let bytesPerFrame = channels * bitsPerSample / 8
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + payload.count)
        data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * bytesPerFrame); u16(bytesPerFrame); u16(bitsPerSample)
        data.append(contentsOf: Array("data".utf8)); u32(payload.count)
        data.append(payload)
        try data.write(to: url)
    }

    /// Encodes a sine of exactly `frames` frames as `codec` with ffmpeg, tagged with `tags`
    /// (ffmpeg metadata keys: title, artist, album_artist, album, genre, date, track "3/12", disc "1/2",
    /// compilation; any other key becomes a free-form comment or TXXX frame).
    @discardableResult
    public static func encode(_ codec: Codec, to url: URL, frames: Int, sampleRate: Int = 44100, channels: Int = 2,
                              frequency: Double = 440, offset: Int = 0, tags: [String: String] = [:]) throws -> URL {
        let source = url.deletingLastPathComponent().appendingPathComponent(".src-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: source) }
        try writeWAV(sine(frames: frames, sampleRate: sampleRate, channels: channels, frequency: frequency, offset: offset),
                     sampleRate: sampleRate, channels: channels, to: source)
        try encodeFile(source, as: codec, to: url, tags: tags)
        return url
    }

    /// Encodes an existing audio file with ffmpeg.
    public static func encodeFile(_ source: URL, as codec: Codec, to url: URL, tags: [String: String] = [:]) throws {
        var args = ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path, "-map_metadata", "-1"]
        args += codec.ffmpegArguments
        for (k, v) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(k)=\(v)"] }
        args.append(url.path)
        try run("ffmpeg", args)
    }

    /// Runs a tool from PATH and returns its standard output; a non-zero exit throws with its stderr.
    /// An ffmpeg run that writes one file may be answered from `FixtureCache` (then its standard output is empty).
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> String {
        guard tool == "ffmpeg", let output = arguments.last, let entry = FixtureCache.entry(for: arguments) else {
            return try runUncached(tool, arguments)
        }
        if FixtureCache.restore(entry, to: output) { return "" }
        let out = try runUncached(tool, arguments)
        FixtureCache.keep(output, as: entry)
        return out
    }

    /// `run` without the cache.
    @discardableResult
    static func runUncached(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                + (String(data: errData, encoding: .utf8) ?? ""))
        }
        return String(data: outData, encoding: .utf8) ?? ""
    }

    /// Reads the samples of a 16-bit PCM WAV written by `writeWAV` or by ffmpeg/sox, as floats in [-1, 1].
    /// For tests only: a minimal reader that finds the `fmt ` and `data` chunks.
    public static func readWAV16(_ url: URL) throws -> (samples: [Float], sampleRate: Int, channels: Int) {
        let data = try Data(contentsOf: url)
        func u32(_ o: Int) -> Int { Int(data[o]) | Int(data[o + 1]) << 8 | Int(data[o + 2]) << 16 | Int(data[o + 3]) << 24 }
        func u16(_ o: Int) -> Int { Int(data[o]) | Int(data[o + 1]) << 8 }
        var offset = 12, rate = 0, channels = 0
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " { channels = u16(offset + 10); rate = u32(offset + 12) }
            if id == "data" {
                let end = min(data.count, offset + 8 + size)
                var samples: [Float] = []
                samples.reserveCapacity((end - offset - 8) / 2)
                var o = offset + 8
                while o + 1 < end { samples.append(Float(Int16(bitPattern: UInt16(u16(o)))) / 32768); o += 2 }
                return (samples, rate, channels)
            }
            offset += 8 + size + (size & 1)
        }
        throw ToolError(description: "\(url.path): no data chunk")
    }
}
