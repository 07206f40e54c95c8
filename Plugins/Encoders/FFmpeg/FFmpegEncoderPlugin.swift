import CFFmpeg
public import CrateDomain
import FFmpegSupport

/// Encodes through FFmpeg's libraries (loaded when first used): Opus in Ogg by libopus, MP3 by LAME — the encoders
/// Debian's FFmpeg carries. For transcoding to listeners elsewhere (the Subsonic API) and, later, the stream output.
public struct FFmpegEncoderPlugin: EncoderPlugin {
    public let name = "ffmpeg"

    /// Opus at 48 kHz in Ogg: transparent for most music from about 128 kbit/s.
    public static let opus = EncodedFormat(name: "opus", suffix: "opus", contentType: "audio/ogg", defaultBitRate: 128)
    public static let mp3 = EncodedFormat(name: "mp3", suffix: "mp3", contentType: "audio/mpeg", defaultBitRate: 192)
    /// The FFmpeg encoder and muxer of each format.
    static let parts = ["opus": (encoder: "libopus", muxer: "ogg"), "mp3": (encoder: "libmp3lame", muxer: "mp3")]

    public init() {}

    public var formats: [EncodedFormat] { [Self.opus, Self.mp3] }

    public var status: PluginStatus {
        switch FFmpegLibrary.table {
        case .failure(let error): return .unavailable(reason: error.reason)
        case .success(let ff):
            let missing = Self.parts.values.map(\.encoder).sorted().filter { ff.avcodec_find_encoder_by_name($0) == nil }
            return missing.isEmpty ? .available : .unavailable(reason: "this FFmpeg has no \(missing.joined(separator: " or ")) encoder")
        }
    }

    public func makeEncoder(format: String, bitRate: Int, sampleRate: Int, channels: Int) throws -> any AudioEncoder {
        guard let chosen = formats.first(where: { $0.name == format }), let parts = Self.parts[format] else {
            throw EncodeError(format: format, reason: "the ffmpeg encoder writes opus and mp3 only")
        }
        let ff: FFmpegFunctions
        switch FFmpegLibrary.table {
        case .success(let functions): ff = functions
        case .failure(let error): throw EncodeError(format: format, reason: error.reason)
        }
        return try FFmpegAudioEncoder(ff, format: chosen, encoder: parts.encoder, muxer: parts.muxer, bitRate: bitRate,
                                      inputRate: sampleRate, inputChannels: channels)
    }
}
