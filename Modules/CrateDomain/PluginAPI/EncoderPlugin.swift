public import Foundation

/// A format an encoder writes: `opus` (Opus in Ogg), `mp3`.
public struct EncodedFormat: Sendable, Hashable, Codable {
    /// The name clients ask for (Subsonic's `format=opus`).
    public var name: String
    public var suffix: String
    public var contentType: String
    /// The bit rate when none is asked for, in kbit/s.
    public var defaultBitRate: Int

    public init(name: String, suffix: String, contentType: String, defaultBitRate: Int) {
        self.name = name
        self.suffix = suffix
        self.contentType = contentType
        self.defaultBitRate = defaultBitRate
    }
}

/// An encoder provider: turns PCM into a compressed stream, to send music where the original is too big (a phone on
/// a mobile network) or in a format a listener's player reads. Stateless and shared; each `makeEncoder` returns a
/// fresh `AudioEncoder`.
public protocol EncoderPlugin: Sendable {
    var name: String { get }
    var formats: [EncodedFormat] { get }
    var status: PluginStatus { get }

    /// An encoder for `format` at `bitRate` kbit/s taking interleaved float PCM at `sampleRate` with `channels`
    /// (it resamples and downmixes to what the format needs). Throws `EncodeError`.
    func makeEncoder(format: String, bitRate: Int, sampleRate: Int, channels: Int) throws -> any AudioEncoder
}

/// One stream being encoded; not shared between threads. The bytes come out in order, container and all: what
/// `encode` and `finish` return, concatenated, is the file.
public protocol AudioEncoder: AnyObject {
    var format: EncodedFormat { get }
    /// Takes whole frames of interleaved float samples; answers the bytes ready so far (often none).
    func encode(_ samples: UnsafeBufferPointer<Float>) throws -> Data
    /// Flushes what is held and closes the container; answers the last bytes.
    func finish() throws -> Data
}

/// Why an encoder could not be made or failed.
public struct EncodeError: Error, CustomStringConvertible, Sendable {
    public var format: String
    public var reason: String

    public init(format: String, reason: String) {
        self.format = format
        self.reason = reason
    }

    public var description: String { "cannot encode \(format): \(reason)" }
}

/// The encoders of the plugins, by format name; the first plugin that writes a format and is available wins.
public struct EncoderRegistry: Sendable {
    public let plugins: [any EncoderPlugin]

    public init(_ plugins: [any EncoderPlugin]) { self.plugins = plugins }

    /// The formats some available encoder writes.
    public var formats: [EncodedFormat] {
        var seen = Set<String>()
        return plugins.filter { $0.status.isAvailable }.flatMap(\.formats).filter { seen.insert($0.name).inserted }
    }

    public func format(named name: String) -> EncodedFormat? { formats.first { $0.name == name.lowercased() } }

    public func makeEncoder(format: String, bitRate: Int, sampleRate: Int, channels: Int) throws -> any AudioEncoder {
        let name = format.lowercased()
        guard let plugin = plugins.first(where: { $0.status.isAvailable && $0.formats.contains { $0.name == name } }) else {
            let known = formats.map(\.name).joined(separator: ", ")
            throw EncodeError(format: format, reason: known.isEmpty ? "no encoder is available" : "the encoders write \(known) only")
        }
        return try plugin.makeEncoder(format: name, bitRate: bitRate, sampleRate: sampleRate, channels: channels)
    }

    public var descriptors: [PluginDescriptor] {
        plugins.map { PluginDescriptor(name: $0.name, kind: .encoder, status: $0.status, handles: $0.formats.map(\.name)) }
    }
}
