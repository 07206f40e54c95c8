import Foundation

/// The PCM that flows through the pipeline: interleaved 32-bit float samples in [-1, 1].
/// One representation for every codec keeps gain, gapless joins and comparisons simple,
/// and 24-bit integer sources fit a Float's mantissa exactly.
public struct PCMFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var description: String { "\(sampleRate) Hz, \(channels) ch" }
}

/// What a decoder learned about an encoded stream: codec, native format and exact length.
public struct StreamInfo: Sendable, Hashable, Codable {
    /// Short codec name: "opus", "vorbis", "mp3", "flac", "wav".
    public var codec: String
    /// Sample rate the decoder outputs (Opus always decodes at 48 kHz).
    public var sampleRate: Int
    public var channels: Int
    /// Bits per sample of lossless sources; nil for lossy codecs.
    public var bitsPerSample: Int?
    /// Exact length in frames at `sampleRate`, after encoder delay and padding are removed; nil when unknown.
    public var frames: Int64?

    public init(codec: String, sampleRate: Int, channels: Int, bitsPerSample: Int? = nil, frames: Int64? = nil) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.frames = frames
    }

    public var pcmFormat: PCMFormat { PCMFormat(sampleRate: sampleRate, channels: channels) }

    /// Duration in seconds, when the length is known.
    public var duration: Double? {
        guard let frames, sampleRate > 0 else { return nil }
        return Double(frames) / Double(sampleRate)
    }

    /// "flac 44100 Hz 16-bit 2 ch".
    public var summary: String {
        var parts = [codec, "\(sampleRate) Hz"]
        if let bitsPerSample { parts.append("\(bitsPerSample)-bit") }
        parts.append("\(channels) ch")
        return parts.joined(separator: " ")
    }
}
