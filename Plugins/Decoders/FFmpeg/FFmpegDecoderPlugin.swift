public import CrateDomain
import FFmpegSupport
public import Foundation

/// What the native decoders do not read, through FFmpeg (libavformat + libavcodec + libswresample): MP4/M4A with AAC
/// or ALAC, raw AAC (ADTS, as internet radio sends it), WavPack, Monkey's Audio and WMA. Registered after the native
/// decoders, so it never takes a file they read.
///
/// Every input goes through the byte-stream layer (a custom AVIOContext), so files, files on web servers and radio
/// streams play the same way. AAC in MP4 is gapless: the encoder delay and padding are removed (see
/// `FFmpegAudioDecoder.exactLength`), so an album cut from one signal plays back as that signal.
public struct FFmpegDecoderPlugin: DecoderPlugin {
    public let name = "ffmpeg"
    public let suffixes = ["m4a", "m4b", "mp4", "aac", "wv", "ape", "wma"]
    public let mimeTypes = ["audio/mp4", "audio/x-m4a", "audio/m4a", "video/mp4", "audio/aac", "audio/aacp", "audio/x-aac",
                            "audio/wavpack", "audio/x-wavpack", "audio/ape", "audio/x-ape", "audio/x-ms-wma"]
    /// Asking loads FFmpeg's libraries (once): the registry asks only when a file or stream is this plugin's.
    public var status: PluginStatus { FFmpegLibrary.status }

    /// The containers it opens: anything else libavformat recognises (MP3, Ogg, FLAC, video formats) is refused, so
    /// the native decoders keep their files.
    static let formats = FFmpegFormats(["mov", "mp4", "m4a", "aac", "wv", "ape", "asf"],
                                       refusal: "not a format the ffmpeg decoder reads (MP4/M4A, AAC, WavPack, Monkey's Audio, WMA)")

    public init() {}

    /// An MP4 `ftyp` box, a WavPack block (`wvpk`), a Monkey's Audio header (`MAC `), the ASF header GUID, or two ADTS
    /// (raw AAC) frame headers in a row; WavPack, APE and ADTS also after an ID3v2 tag.
    public func recognizes(head: Data) -> Bool {
        FFmpegSniffer.recognizes([UInt8](head.prefix(16 * 1024)))
    }

    public func probe(_ url: URL) throws -> ProbedFile {
        _ = try AudioFileCheck.readableSize(url)
        let decoder = try FFmpegAudioDecoder(stream: try FileByteStream(url), formats: Self.formats)
        var info = decoder.info
        // Containers without an exact length (raw AAC, WMA's millisecond clock) are counted: decoding is the only
        // exact measure, and these formats are rare in a library.
        if info.frames == nil { info.frames = try decoder.countRemainingFrames() }
        return ProbedFile(tags: decoder.tags(), info: info, picture: decoder.picture())
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        _ = try AudioFileCheck.readableSize(url)
        return try FFmpegAudioDecoder(stream: try FileByteStream(url), formats: Self.formats)
    }

    /// Any stream, through the AVIO callbacks; FFmpeg is offered seeking only when the stream can (a live stream
    /// cannot, and an MP4 whose index sits at its end then cannot be read).
    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        try FFmpegAudioDecoder(stream: stream, formats: Self.formats)
    }
}

/// Magic numbers of the formats this plugin is for (and FFmpeg's demuxers accept).
enum FFmpegSniffer {
    static let asfHeader: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]

    static func recognizes(_ bytes: [UInt8]) -> Bool {
        if bytes.count >= 8, bytes[4..<8].elementsEqual("ftyp".utf8) { return true }
        if bytes.starts(with: asfHeader) { return true }
        var at = 0
        if bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {   // "ID3": skip the tag
            at = 10 + (Int(bytes[6] & 0x7f) << 21 | Int(bytes[7] & 0x7f) << 14 | Int(bytes[8] & 0x7f) << 7 | Int(bytes[9] & 0x7f))
        }
        guard bytes.count >= at + 4 else { return false }
        let magic = bytes[at..<at + 4]
        if magic.elementsEqual("wvpk".utf8) || magic.elementsEqual("MAC ".utf8) { return true }
        // ADTS: a 12-bit sync word, layer 0 (which MPEG audio never uses); two headers in a row, since one could be chance.
        guard let first = adtsFrameLength(bytes, at: at), let second = adtsFrameLength(bytes, at: at + first) else { return false }
        return second > 0
    }

    /// The length of the ADTS frame whose header starts at `at`, or nil when there is none there.
    static func adtsFrameLength(_ bytes: [UInt8], at: Int) -> Int? {
        guard at >= 0, bytes.count >= at + 7, bytes[at] == 0xFF, bytes[at + 1] & 0xF6 == 0xF0,
              (bytes[at + 2] >> 2) & 0x0F < 13 else { return nil }   // sampling frequency index 13-15 are reserved
        let length = Int(bytes[at + 3] & 0x03) << 11 | Int(bytes[at + 4]) << 3 | Int(bytes[at + 5] >> 5)
        return length >= 7 ? length : nil
    }
}
