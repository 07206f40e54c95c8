public import CrateDomain
public import Foundation
public import Testing

/// Shared steps of the decoder plugin tests: the tag set every codec is tagged with, decoding a
/// whole file, comparing against the generated source, and the malformed files each decoder must refuse.
public enum DecoderChecks {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// ffmpeg metadata written by `Fixture.encode`. The title is not Latin-1 so that text encodings are exercised.
    public static let tags: [String: String] = [
        "title": "Crate Test – Ünïcode", "artist": "Test Artist", "album_artist": "Various Artists",
        "album": "Test Album", "genre": "Ambient", "date": "2021", "track": "3/12", "disc": "1/2",
    ]

    /// What `tags` must read back as.
    public static let expectedTags = TrackTags(
        title: "Crate Test – Ünïcode", artist: "Test Artist", albumArtist: "Various Artists", album: "Test Album",
        genre: "Ambient", date: "2021", trackNumber: 3, trackTotal: 12, discNumber: 1, discTotal: 2)

    /// Reads `decoder` to the end with `bufferFrames`-frame buffers and returns the interleaved samples.
    /// Throws if a read breaks the contract (more frames than fit, or a decoder that never ends).
    public static func decodeAll(_ decoder: any AudioDecoder, bufferFrames: Int = 4096,
                                 maxFrames: Int = 10_000_000) throws -> [Float] {
        let channels = decoder.info.channels
        guard channels > 0 else { throw Failure(description: "decoder reports \(channels) channels") }
        var buffer = [Float](repeating: .nan, count: bufferFrames * channels)
        var out: [Float] = []
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            guard n >= 0, n <= bufferFrames else {
                throw Failure(description: "read returned \(n) frames into a \(bufferFrames)-frame buffer")
            }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n * channels])
            guard out.count <= maxFrames * channels else { throw Failure(description: "decoder did not end") }
        }
    }

    /// The generated test sine as floats, exactly as a lossless decoder must return it.
    public static func sourceFloats(frames: Int, sampleRate: Int = 44100, channels: Int = 2) -> [Float] {
        Fixture.sine(frames: frames, sampleRate: sampleRate, channels: channels).map { Float($0) / 32768 }
    }

    /// The first index where `a` and `b` differ by more than `tolerance`, or where one ends; nil when equal.
    public static func firstMismatch(_ a: [Float], _ b: [Float], tolerance: Float = 0) -> Int? {
        for i in 0..<min(a.count, b.count) where !(abs(a[i] - b[i]) <= tolerance) { return i }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    /// Normalised correlation at lag 0 (1 = same shape). A gapless decoder lines up with its source
    /// to the sample, so a 440 Hz tone stays above 0.99; a few samples of misalignment drop it.
    public static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in 0..<n {
            ab += Double(a[i]) * Double(b[i])
            aa += Double(a[i]) * Double(a[i])
            bb += Double(b[i]) * Double(b[i])
        }
        guard aa > 0, bb > 0 else { return 0 }
        return ab / (aa * bb).squareRoot()
    }

    /// The malformed inputs every decoder must refuse with a `DecodeError`.
    public enum BadInput: String, CaseIterable, Sendable, CustomStringConvertible {
        case empty, random, truncated, missing
        public var description: String { rawValue }
    }

    /// Writes the `kind` of bad file next to `good` (a valid file of the codec) and returns its URL.
    public static func makeBadFile(_ kind: BadInput, from good: URL) throws -> URL {
        let dir = good.deletingLastPathComponent()
        let url = dir.appendingPathComponent("\(kind.rawValue).\(good.pathExtension)")
        switch kind {
        case .empty:
            try Data().write(to: url)
        case .random:
            try randomBytes(count: 4096, seed: 0x5EED).write(to: url)
        case .truncated:
            let data = try Data(contentsOf: good)
            try data.prefix(data.count / 2).write(to: url)
        case .missing:
            break
        }
        return url
    }

    /// Deterministic noise (SplitMix64), so a failure with "random" bytes can be reproduced.
    public static func randomBytes(count: Int, seed: UInt64) -> Data {
        var state = seed
        var data = Data(capacity: count)
        while data.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { data.append(contentsOf: $0.prefix(count - data.count)) }
        }
        return data
    }
}

// MARK: - Shared expectations (one place for what every decoder must do)

extension DecoderChecks {
    /// A bad copy of `good` is refused at probe and at decode with a `DecodeError` naming the file;
    /// `random` is the codec's own "not this format" reason.
    public static func expectRefusal(_ plugin: any DecoderPlugin, _ kind: BadInput, from good: URL, random: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bad = try makeBadFile(kind, from: good)
        let reason: String = switch kind {
        case .empty: "file is empty"
        case .random: random
        case .truncated: "truncated"
        case .missing: "no such file"
        }
        let probeError = #expect(throws: DecodeError.self, sourceLocation: sourceLocation) { try plugin.probe(bad) }
        #expect(probeError?.path == bad.path, sourceLocation: sourceLocation)
        #expect(probeError?.reason.hasPrefix(reason) == true, "\(String(describing: probeError))", sourceLocation: sourceLocation)
        let decodeError = #expect(throws: DecodeError.self, sourceLocation: sourceLocation) {
            _ = try decodeAll(try plugin.open(bad))
        }
        #expect(decodeError?.reason.hasPrefix(reason) == true, "\(String(describing: decodeError))", sourceLocation: sourceLocation)
    }

    /// A lossy decode of the 0.5-amplitude 440 Hz sine: level, pitch, alignment with the source (which only
    /// holds if encoder delay was removed exactly), range, and the same samples whatever the buffer size.
    public static func expectLossyMatch(_ plugin: any DecoderPlugin, file: URL, source: [Float], sampleRate: Int,
                                        channels: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let samples = try decodeAll(try plugin.open(file))
        let left = SignalAnalysis.channel(0, of: samples, channels: channels)
        #expect(abs(SignalAnalysis.rms(samples) - 0.3535) < 0.02, sourceLocation: sourceLocation)
        #expect(abs((SignalAnalysis.dominantFrequency(left, sampleRate: sampleRate) ?? 0) - 440) < 2, sourceLocation: sourceLocation)
        #expect(correlation(samples, source) > 0.99, sourceLocation: sourceLocation)
        #expect(samples.allSatisfy { $0 >= -1 && $0 <= 1 }, sourceLocation: sourceLocation)
        for bufferFrames in [1, 1000] {
            let again = try decodeAll(try plugin.open(file), bufferFrames: bufferFrames)
            #expect(firstMismatch(again, samples) == nil, "buffer of \(bufferFrames) frames", sourceLocation: sourceLocation)
        }
    }
}

extension DecoderChecks {
    /// A chained Ogg file (links appended one after another) is one track: the links' lengths add up
    /// exactly, and a link with another channel count is an error rather than scrambled audio.
    public static func expectChainedLinks(_ plugin: any DecoderPlugin, codec: Fixture.Codec, sampleRate: Int,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let dir = try Fixture.temporaryDirectory("ogg-chain")
        defer { try? FileManager.default.removeItem(at: dir) }
        // Each link its own tone: two links of one recipe would be the same bytes (FixtureCache), serial number and all,
        // which is one stream twice rather than a chain.
        func link(_ name: String, channels: Int, frequency: Double) throws -> Data {
            try Data(contentsOf: try Fixture.encode(codec, to: dir.appendingPathComponent("\(name).\(codec.suffix)"),
                                                     frames: 10_000, sampleRate: sampleRate, channels: channels, frequency: frequency))
        }
        let first = try link("a", channels: 2, frequency: 440), second = try link("b", channels: 2, frequency: 550)
        let mono = try link("m", channels: 1, frequency: 660)
        let chained = dir.appendingPathComponent("chained.\(codec.suffix)"), mixed = dir.appendingPathComponent("mixed.\(codec.suffix)")
        try (first + second).write(to: chained)
        try (first + mono).write(to: mixed)

        #expect(try plugin.probe(chained).info.frames == 20_000, sourceLocation: sourceLocation)
        #expect(try decodeAll(try plugin.open(chained)).count == 20_000 * 2, sourceLocation: sourceLocation)
        let error = #expect(throws: DecodeError.self, sourceLocation: sourceLocation) { _ = try decodeAll(try plugin.open(mixed)) }
        #expect(error?.reason.contains("chained stream changes") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }
}

extension DecoderChecks {
    /// How a decode after `seek(toFrame:)` compares with the same frames of a straight decode.
    public struct SeekDeviation: Sendable, CustomStringConvertible {
        /// The frame the decode should start at: the target clamped to [0, length].
        public var start: Int
        /// Frames decoded after the seek, and how many the straight decode has from `start` on.
        public var frames: Int
        public var expectedFrames: Int
        /// Largest difference of a sample from the straight decode's.
        public var maxDifference: Float
        /// The last frame (counted from `start`) with any difference at all; nil when identical.
        public var lastDifferentFrame: Int?

        public var description: String {
            "from frame \(start): \(frames) of \(expectedFrames) frames, max difference \(maxDifference), "
                + "last differing frame \(lastDifferentFrame.map(String.init) ?? "none")"
        }
    }

    /// Seeks `decoder` to `target`, decodes to the end, and compares with `reference` (the whole file, decoded straight).
    public static func deviation(seeking decoder: any AudioDecoder, to target: Int64, reference: [Float]) throws -> SeekDeviation {
        let channels = decoder.info.channels
        try decoder.seek(toFrame: target)
        let tail = try decodeAll(decoder)
        let total = reference.count / channels
        let start = Int(min(max(target, 0), Int64(total)))
        let expected = reference[(start * channels)...]
        var result = SeekDeviation(start: start, frames: tail.count / channels, expectedFrames: expected.count / channels,
                                   maxDifference: 0, lastDifferentFrame: nil)
        for (i, (a, b)) in zip(tail, expected).enumerated() {
            // A NaN would compare false with everything: count it as the largest difference.
            let difference = (a - b).isNaN ? .infinity : abs(a - b)
            guard difference > 0 else { continue }
            result.maxDifference = max(result.maxDifference, difference)
            result.lastDifferentFrame = i / channels
        }
        return result
    }

    /// A harder test signal than the sine for lossy seeking: a gliding tone, a quieter tremolo tone, noise
    /// bursts and clicks, with the second channel different from the first. Lossy coders spend their bits
    /// unevenly on it (MP3's bit reservoir, Opus' energy prediction), which is what a seek must cope with.
    /// Deterministic, so a failure can be reproduced.
    public static func seekSignal(frames: Int, sampleRate: Int, channels: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * channels)
        var state: UInt64 = 0x5EED
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
        }
        for i in 0..<frames {
            let t = Double(i) / Double(sampleRate)
            var v = 0.3 * sin(2 * .pi * (200 + 800 * t) * t) + 0.1 * sin(2 * .pi * 3000 * t) * sin(2 * .pi * 1.3 * t)
            if (i / 4000) % 3 == 0 { v += 0.2 * noise() }
            if i % 9000 < 20 { v += 0.5 }
            for c in 0..<channels {
                let w = c == 0 ? v : v * 0.7 + 0.05 * noise()
                out[i * channels + c] = Int16(max(-32767, min(32767, (w * 32767).rounded())))
            }
        }
        return out
    }

    /// Reads and discards up to `frames` frames (fewer at the end) with 1000-frame reads; returns how many were read.
    @discardableResult
    public static func discard(_ decoder: any AudioDecoder, frames: Int) throws -> Int {
        let channels = decoder.info.channels
        var buffer = [Float](repeating: 0, count: 1000 * channels)
        var done = 0
        while done < frames {
            let wanted = min(1000, frames - done) * channels
            let n = try buffer.withUnsafeMutableBufferPointer { buffer in
                try decoder.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<wanted]))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Seeking lands on the exact frame: after a seek to any target (start, block borders, middle, last frame,
    /// past the end, negative) of a fresh decoder, after reading some, after reaching the end, and after
    /// several seeks in a row, decoding to the end gives exactly the frames left, with samples that differ from
    /// the straight decode's by at most `tolerance` (lossless decoders: 0). Returns the deviations seen, worst first.
    @discardableResult
    public static func expectSampleExactSeeks(_ plugin: any DecoderPlugin, file: URL, tolerance: Float = 0,
                                              sourceLocation: SourceLocation = #_sourceLocation) throws -> [SeekDeviation] {
        let straight = try plugin.open(file)
        let channels = straight.info.channels
        let reference = try decodeAll(straight)
        let total = reference.count / channels
        #expect(straight.info.frames == Int64(total), "the straight decode has \(total) frames", sourceLocation: sourceLocation)
        var seen: [SeekDeviation] = []
        func check(_ deviation: SeekDeviation, _ what: String) {
            seen.append(deviation)
            #expect(deviation.frames == deviation.expectedFrames, "\(what): \(deviation)", sourceLocation: sourceLocation)
            #expect(deviation.maxDifference <= tolerance, "\(what): \(deviation)", sourceLocation: sourceLocation)
        }

        // A fresh decoder seeking straight away.
        let targets: [Int64] = [0, 1, 4095, 4096, 12345, Int64(total / 2), Int64(total * 3 / 4), Int64(total - 1), Int64(total),
                                Int64(total + 1000), -5]
        for target in targets {
            check(try deviation(seeking: try plugin.open(file), to: target, reference: reference),
                  "seek to \(target)")
        }

        // Backwards after reading some, and forwards past what was read.
        let back = try plugin.open(file)
        #expect(try discard(back, frames: 30_000) == min(30_000, total), sourceLocation: sourceLocation)
        check(try deviation(seeking: back, to: 5000, reference: reference), "back to 5000 after 30000 read")
        let forth = try plugin.open(file)
        try discard(forth, frames: 10_000)
        check(try deviation(seeking: forth, to: 60_000, reference: reference), "on to 60000 after 10000 read")

        // Several seeks in a row, some with reads between, some without.
        let many = try plugin.open(file)
        try many.seek(toFrame: 50_000)
        try discard(many, frames: 4096)
        try many.seek(toFrame: 20_000)
        try many.seek(toFrame: 70_000)
        try discard(many, frames: 100)
        check(try deviation(seeking: many, to: 12_345, reference: reference), "fifth seek, to 12345")
        // At the end (reached by decoding, then by seeking past it), reads give 0 without an error, and
        // a seek still works from there.
        #expect(try discard(many, frames: 1) == 0, sourceLocation: sourceLocation)
        check(try deviation(seeking: many, to: Int64(total / 3), reference: reference), "seek after the end")
        try many.seek(toFrame: Int64(total) + 5)
        #expect(try discard(many, frames: 1) == 0, sourceLocation: sourceLocation)
        #expect(try discard(many, frames: 1) == 0, sourceLocation: sourceLocation)
        check(try deviation(seeking: many, to: -1, reference: reference), "back to the start from past the end")
        return seen.sorted { $0.maxDifference > $1.maxDifference }
    }
}
