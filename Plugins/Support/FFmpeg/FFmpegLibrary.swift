public import CFFmpeg
public import CrateDomain

/// FFmpeg's functions, loaded the first time a decoder needs them (see `CFFmpeg.h` for why not at start-up), with
/// its log silenced (errors come back as `DecodeError`s, never on stderr) and what this build of FFmpeg can do
/// checked.
public enum FFmpegLibrary {
    /// The libraries' functions, or why they cannot be loaded (what decoding and encoding share).
    public static let table: Result<FFmpegFunctions, FFmpegUnavailable> = {
        var message = [CChar](repeating: 0, count: 512)
        guard let table = crate_ffmpeg_load(&message, message.count)?.pointee else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegUnavailable(reason: "FFmpeg's libraries cannot be loaded: \(reason)"))
        }
        let ff = FFmpegFunctions(table: table)
        ff.av_log_set_level(AV_LOG_QUIET)
        return .success(ff)
    }()

    /// The table of functions for decoding, or the reason FFmpeg cannot decode what the decoders need.
    static let loaded: Result<FFmpegFunctions, FFmpegUnavailable> = {
        let ff: FFmpegFunctions
        switch table {
        case .success(let functions): ff = functions
        case .failure(let error): return .failure(error)
        }
        var missing: [String] = []
        if ff.av_find_input_format("mov") == nil { missing.append("the MP4 demuxer") }
        if ff.avcodec_find_decoder(AV_CODEC_ID_AAC) == nil { missing.append("the AAC decoder") }
        if ff.avcodec_find_decoder(AV_CODEC_ID_ALAC) == nil { missing.append("the ALAC decoder") }
        guard missing.isEmpty else {
            return .failure(FFmpegUnavailable(reason: "this FFmpeg (libavformat \(version(ff.avformat_version())), libavcodec "
                + "\(version(ff.avcodec_version()))) lacks \(missing.joined(separator: " and "))"))
        }
        return .success(ff)
    }()

    /// Available, or why not; asking loads the libraries.
    public static var status: PluginStatus {
        switch loaded {
        case .success: .available
        case .failure(let error): .unavailable(reason: error.reason)
        }
    }

    /// The functions, or a `DecodeError` for the stream `name` saying why FFmpeg is not usable.
    static func functions(for name: String) throws -> FFmpegFunctions {
        switch loaded {
        case .success(let ff): return ff
        case .failure(let error): throw DecodeError(path: name, reason: error.reason)
        }
    }

    /// libav* encode versions as major << 16 | minor << 8 | micro.
    public static func version(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }

    /// FFmpeg's words for an error code ("Invalid data found when processing input").
    public static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard case .success(let ff) = table, ff.av_strerror(code, &buffer, buffer.count) == 0 else { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why FFmpeg cannot be used here.
public struct FFmpegUnavailable: Error {
    public let reason: String
}

/// The loaded table. Its members are plain C function pointers, set once and never changed: safe to share.
@dynamicMemberLookup
public struct FFmpegFunctions: @unchecked Sendable {
    let table: CrateFFmpeg

    public subscript<T>(dynamicMember member: KeyPath<CrateFFmpeg, T>) -> T { table[keyPath: member] }
}
