import COpusFile
public import CrateDomain
import DecoderSupport
public import Foundation

/// Ogg Opus through libopusfile. Output is always 48 kHz (Opus' internal rate); opusfile removes
/// the pre-skip and the end trim, so `frames` is the exact gapless length.
public struct OpusDecoderPlugin: DecoderPlugin {
    public let name = "opus"
    // Ogg Opus files are sometimes named .ogg: the registry tries Vorbis first, then Opus.
    public let suffixes = ["opus", "ogg", "oga"]
    public let mimeTypes = ["audio/opus"]

    /// An Ogg page whose first packet is `OpusHead`.
    public func recognizes(head: Data) -> Bool {
        head.starts(with: "OggS".utf8) && head.prefix(128).range(of: Data("OpusHead".utf8)) != nil
    }
    /// libopusfile is linked at build time, so there is nothing to find at run time.
    public let status = PluginStatus.available

    public init() {}

    public func probe(_ url: URL) throws -> ProbedFile {
        let decoder = try OpusAudioDecoder(url: url)
        return ProbedFile(tags: decoder.tags(), info: decoder.info, picture: decoder.picture())
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        try OpusAudioDecoder(url: url)
    }

    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        try OpusAudioDecoder(stream: stream)
    }
}

/// opusfile's callbacks over a `ByteStream` (through `StreamCallbacks`).
enum OpusInput {
    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { context, buffer, count in
        Int32(StreamCallbacks.from(context)?.read(buffer, Int(count)) ?? -1)
    }
    static let seek: @convention(c) (UnsafeMutableRawPointer?, opus_int64, Int32) -> Int32 = { context, offset, whence in
        (StreamCallbacks.from(context)?.seek(offset, whence: whence) ?? -1) >= 0 ? 0 : -1
    }
    static let tell: @convention(c) (UnsafeMutableRawPointer?) -> opus_int64 = { context in
        StreamCallbacks.from(context)?.position ?? -1
    }
}

public final class OpusAudioDecoder: AudioDecoder {
    public let info: StreamInfo
    /// The stream's name (a path or a URL), for errors.
    private let name: String
    private let file: OpaquePointer
    /// Keeps the stream alive as long as opusfile may call back into it.
    private let input: StreamCallbacks
    /// The context of the mono/stereo fast path (see `init(url:fastPath:)`), nil when it is off. Allocated
    /// here because it must outlive `file`: freed in deinit, after `op_free`.
    private let fastPath: UnsafeMutablePointer<CrateOpusFastPath>?
    /// Frames handed out so far, to notice a stream that ends before its declared length.
    private var delivered: Int64 = 0
    /// Set by a seek to the length or past it, which opusfile refuses: `read` returns 0 until the next seek.
    private var atEnd = false

    /// Opens `url`. With `fastPath` (the default), mono and stereo streams are decoded packet by packet
    /// with opusfile's own single-stream `OpusDecoder` instead of through libopus' multistream API, which
    /// costs four `opus_decoder_get_size` calls per packet; with Debian's libopus each of those runs two
    /// `CPUID`s, which in a VM trap to the hypervisor: the fast path decodes about 1.7 times as fast there.
    /// The samples are bit for bit the same (see `COpusFile/shim.h`); `fastPath: false` exists to test that.
    public convenience init(url: URL, fastPath: Bool = true) throws {
        _ = try AudioFileCheck.readableSize(url)
        try self.init(stream: try FileByteStream(url), fastPath: fastPath)
    }

    /// Reads through opusfile's callbacks; a stream that cannot seek (live radio) has no known length.
    public init(stream: any ByteStream, fastPath: Bool = true) throws {
        let name = stream.name
        let input = StreamCallbacks(stream)
        var callbacks = OpusFileCallbacks(read: OpusInput.read, seek: input.canSeek ? OpusInput.seek : nil,
                                          tell: OpusInput.tell, close: nil)
        var error: Int32 = 0
        guard let file = op_open_callbacks(input.context, &callbacks, nil, 0, &error) else {
            throw DecodeError(path: name, reason: input.reason(else: Self.describe(error)))
        }
        // Until `self` is complete, deinit does not run: free by hand on the way out.
        var opened = false
        defer { if !opened { op_free(file) } }

        guard let head = op_head(file, -1) else { throw DecodeError(path: name, reason: "damaged Opus header") }
        let channels = Int(head.pointee.channel_count)
        guard channels > 0 else { throw DecodeError(path: name, reason: "damaged Opus header: no channels") }
        if let file = stream.localFile, let size = stream.size { try OggTail.checkComplete(file, size: size) }
        let total = op_pcm_total(file, -1)

        // Nothing throws from here on.
        if fastPath {
            let context = UnsafeMutablePointer<CrateOpusFastPath>.allocate(capacity: 1)
            context.initialize(to: CrateOpusFastPath())
            crate_opus_install_fast_path(file, context)
            self.fastPath = context
        } else {
            self.fastPath = nil
        }
        self.name = name
        self.input = input
        self.file = file
        self.info = StreamInfo(codec: "opus", sampleRate: 48000, channels: channels, bitsPerSample: nil,
                               frames: total >= 0 ? Int64(total) : nil)
        opened = true
    }

    deinit {
        op_free(file)
        fastPath?.deallocate()
    }

    /// Packets decoded so far by the fast path (0 when it is off or the stream is not eligible: more than
    /// two channels, several Opus streams or a reordered channel mapping). For tests.
    public var fastPathPackets: Int { fastPath.map { Int($0.pointee.packets) } ?? 0 }

    /// The first link's comments; a chained file is one track to Crate.
    func tags() -> TrackTags {
        var mapper = TagMapper()
        guard let tags = op_tags(file, 0)?.pointee, let comments = tags.user_comments,
              let lengths = tags.comment_lengths else { return mapper.tags }
        for i in 0..<Int(max(0, tags.comments)) {
            guard let entry = comments[i], lengths[i] > 0 else { continue }
            // Comments are length-delimited UTF-8, not necessarily NUL-terminated.
            let bytes = UnsafeRawBufferPointer(start: entry, count: Int(lengths[i]))
            mapper.vorbisComment(String(decoding: bytes, as: UTF8.self))
        }
        return mapper.tags
    }

    /// The first link's front cover, else its first picture, from METADATA_BLOCK_PICTURE comments decoded by
    /// opusfile. A comment opusfile cannot parse is skipped: tags and audio are still good.
    func picture() -> EmbeddedPicture? {
        guard let tags = op_tags(file, 0) else { return nil }
        var cover = CoverChoice()
        for i in 0..<opus_tags_query_count(tags, Self.pictureTag) where !cover.isSettled {
            guard let comment = opus_tags_query(tags, Self.pictureTag, i) else { continue }
            let text = UnsafeRawBufferPointer(start: comment, count: strlen(comment))
            // The type sits in the first few characters: a picture that could not win is not decoded at all.
            guard text.count <= PictureBlock.maximumBase64Length,
                  let type = PictureBlock.type(ofBase64Comment: text), cover.wants(type: type) else { continue }
            var tag = OpusPictureTag()
            opus_picture_tag_init(&tag)
            guard opus_picture_tag_parse(&tag, comment) == 0 else { continue }
            defer { opus_picture_tag_clear(&tag) }
            cover.consider(type: UInt32(bitPattern: tag.type)) {
                // A URL ("-->" MIME type) or a GIF is refused here, by its bytes.
                guard let data = tag.data else { return nil }
                return EmbeddedPicture(copying: UnsafeRawBufferPointer(start: data, count: Int(tag.data_length)))
            }
        }
        return cover.picture
    }

    private static let pictureTag = "METADATA_BLOCK_PICTURE"

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = info.channels
        let capacity = min(buffer.count, Int(Int32.max)) / channels * channels
        guard capacity > 0, let base = buffer.baseAddress, !atEnd else { return 0 }
        while true {
            var link: Int32 = 0
            let frames = op_read_float(file, base, Int32(capacity), &link)
            if frames == OP_HOLE { continue }  // A damaged page: opusfile resumes after it, as players do.
            if frames < 0 { throw DecodeError(path: name, reason: input.reason(else: Self.describe(frames))) }
            if frames == 0 {
                // Damaged pages are skipped silently; a stream that comes up short says so here.
                if let total = info.frames, delivered < total {
                    throw DecodeError(path: name, reason: "damaged Ogg Opus stream: the audio ends at frame \(delivered) of \(total)")
                }
                return 0
            }
            // Links of a chained file may differ in channels; the output format cannot change mid-track.
            if let head = op_head(file, link), Int(head.pointee.channel_count) != channels {
                throw DecodeError(path: name, reason: "a chained stream changes from \(channels) to \(head.pointee.channel_count) channels at frame \(delivered)")
            }
            delivered += Int64(frames)
            let samples = Int(frames) * channels
            // Opus can overshoot full scale slightly; the pipeline promises [-1, 1].
            for i in 0..<samples { base[i] = min(max(base[i], -1), 1) }
            return Int(frames)
        }
    }

    /// Frames decoded and dropped before a seek target, on top of opusfile's own 80 ms pre-roll.
    /// A fresh Opus decoder lacks the history it predicts from (CELT band energies, SILK's long-term
    /// predictor). Measured with libopus 1.3: after opusfile's pre-roll alone the samples differ from a
    /// straight decode by up to 0.14, CELT's error halving every 20 ms; with 1 s more, CELT (music,
    /// 16-256 kb/s) gives exactly the straight decode's samples and SILK (speech) stays within 0.02.
    /// The cost is decoding 1 s per seek, a few milliseconds.
    static let extraPreRoll: Int64 = 48_000

    /// opusfile seeks sample-exactly (it pre-rolls 80 ms and drops samples up to the target); the extra
    /// pre-roll also makes the samples those of a straight decode.
    public func seek(toFrame frame: Int64) throws {
        let target = max(frame, 0)
        if let total = info.frames, target >= total {
            atEnd = true
            delivered = total
            return
        }
        let start = max(0, target - Self.extraPreRoll)
        let result = op_pcm_seek(file, ogg_int64_t(start))
        guard result == 0 else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): \(Self.describe(result))")
        }
        atEnd = false
        delivered = start
        // `read` checks links and counts `delivered`; a stream ending before the target is reported by it.
        let channels = info.channels
        var scratch = [Float](repeating: 0, count: 4096 * channels)
        while delivered < target {
            let wanted = Int(min(4096, target - delivered)) * channels
            let frames = try scratch.withUnsafeMutableBufferPointer { buffer in
                try read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<wanted]))
            }
            guard frames > 0 else {
                throw DecodeError(path: name, reason: "cannot seek to frame \(target): the stream ends at frame \(delivered)")
            }
        }
    }

    static func describe(_ code: Int32) -> String {
        switch code {
        case OP_ENOTFORMAT: "not an Ogg Opus stream"
        case OP_EBADHEADER: "damaged Opus header"
        case OP_EVERSION: "unsupported Opus version"
        case OP_ENOTAUDIO: "not an audio stream"
        case OP_EREAD: "read error"
        case OP_EFAULT: "out of memory or internal decoder error"
        case OP_EIMPL: "uses an Opus feature this decoder does not support"
        case OP_EBADPACKET, OP_EBADLINK, OP_EBADTIMESTAMP, OP_EINVAL: "damaged Ogg Opus stream"
        default: "Opus decoding failed (error \(code))"
        }
    }
}
