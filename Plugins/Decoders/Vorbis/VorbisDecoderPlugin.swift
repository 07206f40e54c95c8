import CVorbisFile
public import CrateDomain
import DecoderSupport
import FFmpegSupport
public import Foundation

/// Ogg Vorbis. libvorbisfile opens every stream: it checks the headers, reads the tags and counts the exact length
/// from the granule positions. A single-link stream that can seek (a file, a file on a web server) is then decoded
/// by FFmpeg's Vorbis decoder, which is twice as fast as libvorbis (Benchmarks/README.md), trimmed to that length;
/// live streams and chained files stay with vorbisfile, which follows their links. Without FFmpeg's libraries
/// vorbisfile decodes everything.
public struct VorbisDecoderPlugin: DecoderPlugin {
    public let name = "vorbis"
    public let suffixes = ["ogg", "oga"]
    public let mimeTypes = ["audio/ogg", "audio/vorbis"]

    /// An Ogg page whose first packet is the Vorbis identification header (`\u{1}vorbis`).
    public func recognizes(head: Data) -> Bool {
        head.starts(with: "OggS".utf8) && head.prefix(128).range(of: Data("\u{1}vorbis".utf8)) != nil
    }
    /// libvorbisfile is linked at build time, so there is nothing to find at run time.
    public let status = PluginStatus.available

    public init() {}

    public func probe(_ url: URL) throws -> ProbedFile {
        let decoder = try VorbisAudioDecoder(url: url)
        return ProbedFile(tags: decoder.tags(), info: decoder.info, picture: decoder.picture())
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        _ = try AudioFileCheck.readableSize(url)
        return try open(stream: try FileByteStream(url))
    }

    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        let vorbis = try VorbisAudioDecoder(stream: stream)
        guard vorbis.links == 1, let frames = vorbis.info.frames, FFmpegLibrary.status.isAvailable else { return vorbis }
        do {
            try stream.seek(to: 0)
            return try FFmpegAudioDecoder(stream: stream, formats: Self.ogg, codec: "vorbis", length: frames)
        } catch {
            // What vorbisfile read and FFmpeg's demuxer does not (a damaged page it stops at) is still played.
            try stream.seek(to: 0)
            return try VorbisAudioDecoder(stream: stream)
        }
    }

    static let ogg = FFmpegFormats(["ogg"], refusal: "not an Ogg Vorbis stream")
}

/// vorbisfile's callbacks over a `ByteStream` (through `StreamCallbacks`).
enum VorbisInput {
    /// vorbisfile tells a read error from the end by errno.
    static let read: @convention(c) (UnsafeMutableRawPointer?, Int, Int, UnsafeMutableRawPointer?) -> Int = { buffer, size, count, context in
        let n = StreamCallbacks.from(context)?.read(buffer, size * count) ?? -1
        if n < 0 { errno = EIO; return 0 }
        errno = 0
        return size > 0 ? n / size : 0
    }
    static let seek: @convention(c) (UnsafeMutableRawPointer?, ogg_int64_t, Int32) -> Int32 = { context, offset, whence in
        (StreamCallbacks.from(context)?.seek(offset, whence: whence) ?? -1) >= 0 ? 0 : -1
    }
    static let tell: @convention(c) (UnsafeMutableRawPointer?) -> Int = { context in
        Int(StreamCallbacks.from(context)?.position ?? -1)
    }
}

public final class VorbisAudioDecoder: AudioDecoder {
    public let info: StreamInfo
    /// The stream's name (a path or a URL), for errors.
    private let name: String
    /// Keeps the stream alive as long as vorbisfile may call back into it.
    private let input: StreamCallbacks
    /// Heap-allocated because vorbisfile keeps the struct's address for the life of the stream.
    private let file: UnsafeMutablePointer<OggVorbis_File>
    /// Frames handed out so far, to notice a stream that ends before its declared length.
    private var delivered: Int64 = 0
    /// Set by a seek to the length or past it (vorbisfile refuses targets past it): `read` returns 0 until the next seek.
    private var atEnd = false
    /// The logical streams chained one after another in a stream that can seek (1 in most files); 0 when the stream
    /// cannot seek and vorbisfile cannot know (internet radio chains one per song).
    let links: Int

    convenience init(url: URL) throws {
        _ = try AudioFileCheck.readableSize(url)
        try self.init(stream: try FileByteStream(url))
    }

    /// Reads through vorbisfile's callbacks; a stream that cannot seek (live radio) has no known length.
    init(stream: any ByteStream) throws {
        let name = stream.name
        let input = StreamCallbacks(stream)
        let callbacks = ov_callbacks(read_func: VorbisInput.read, seek_func: input.canSeek ? VorbisInput.seek : nil,
                                     close_func: nil, tell_func: VorbisInput.tell)
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let result = ov_open_callbacks(input.context, file, nil, 0, callbacks)
        guard result == 0 else {
            // On failure ov_open_callbacks has already cleared the struct.
            file.deallocate()
            throw DecodeError(path: name, reason: input.reason(else: Self.describe(result)))
        }
        // Until `self` is complete, deinit does not run: free by hand on the way out.
        var opened = false
        defer {
            if !opened {
                ov_clear(file)
                file.deallocate()
            }
        }

        guard let vi = ov_info(file, -1) else { throw DecodeError(path: name, reason: "damaged Vorbis header") }
        let channels = Int(vi.pointee.channels), rate = Int(vi.pointee.rate)
        guard channels > 0, rate > 0 else {
            throw DecodeError(path: name, reason: "damaged Vorbis header: \(channels) channels at \(rate) Hz")
        }
        if let local = stream.localFile, let size = stream.size { try OggTail.checkComplete(local, size: size) }
        let total = ov_pcm_total(file, -1)
        // Measured with libvorbisfile 1.3.7: in a chained file whose first link has a single audio
        // page, reading straight after opening starts at the second link. An explicit seek to the
        // start makes it decode every link.
        if ov_streams(file) > 1, ov_seekable(file) != 0, ov_pcm_seek(file, 0) != 0 {
            throw DecodeError(path: name, reason: "damaged Ogg Vorbis stream: cannot seek to the start")
        }

        self.name = name
        self.input = input
        self.file = file
        links = ov_seekable(file) != 0 ? Int(ov_streams(file)) : 0
        self.info = StreamInfo(codec: "vorbis", sampleRate: rate, channels: channels, bitsPerSample: nil,
                               frames: total >= 0 ? Int64(total) : nil)
        opened = true
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    /// The first link's comments; a chained file is one track to Crate.
    func tags() -> TrackTags {
        var mapper = TagMapper()
        guard let vc = ov_comment(file, 0)?.pointee, let comments = vc.user_comments,
              let lengths = vc.comment_lengths else { return mapper.tags }
        for i in 0..<Int(max(0, vc.comments)) {
            guard let entry = comments[i], lengths[i] > 0 else { continue }
            // Comments are length-delimited UTF-8.
            let bytes = UnsafeRawBufferPointer(start: entry, count: Int(lengths[i]))
            mapper.vorbisComment(String(decoding: bytes, as: UTF8.self))
        }
        return mapper.tags
    }

    /// The first link's front cover, else its first picture, from METADATA_BLOCK_PICTURE comments. libvorbis
    /// leaves their base64 FLAC PICTURE blocks undecoded; `PictureBlock` decodes them straight from its
    /// memory, and only the one chosen by type. A damaged one is skipped: tags and audio are still good.
    func picture() -> EmbeddedPicture? {
        guard let vc = ov_comment(file, 0)?.pointee, let comments = vc.user_comments,
              let lengths = vc.comment_lengths else { return nil }
        var cover = CoverChoice()
        for i in 0..<Int(max(0, vc.comments)) where !cover.isSettled {
            guard let entry = comments[i], lengths[i] > 0,
                  let value = PictureBlock.value(ofComment: UnsafeRawBufferPointer(start: entry, count: Int(lengths[i]))),
                  value.count <= PictureBlock.maximumBase64Length,
                  let type = PictureBlock.type(ofBase64Comment: value) else { continue }
            cover.consider(type: type) { PictureBlock.fromBase64Comment(value)?.picture }
        }
        return cover.picture
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = info.channels
        let capacity = min(buffer.count / channels, Int(Int32.max))
        guard capacity > 0, let base = buffer.baseAddress, !atEnd else { return 0 }
        while true {
            var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var section: Int32 = 0
            let result = ov_read_float(file, &planes, Int32(capacity), &section)
            if result == OV_HOLE { continue }  // A damaged page: vorbisfile resumes after it, as players do.
            if result < 0 { throw DecodeError(path: name, reason: input.reason(else: Self.describe(Int32(clamping: result)))) }
            if result == 0 {
                // Damaged pages are skipped silently; a stream that comes up short says so here.
                if let total = info.frames, delivered < total {
                    throw DecodeError(path: name, reason: "damaged Ogg Vorbis stream: the audio ends at frame \(delivered) of \(total)")
                }
                return 0
            }
            // Links of a chained file may differ; the output format cannot change mid-track.
            if let vi = ov_info(file, section), Int(vi.pointee.channels) != channels || Int(vi.pointee.rate) != info.sampleRate {
                throw DecodeError(path: name, reason: "a chained stream changes format at frame \(delivered) (to \(vi.pointee.rate) Hz, \(vi.pointee.channels) ch)")
            }
            guard let planes else { throw DecodeError(path: name, reason: "Vorbis decoder returned no samples") }
            let frames = min(Int(result), capacity)
            // vorbisfile hands out one array per channel; the pipeline wants them interleaved.
            for c in 0..<channels {
                guard let plane = planes[c] else { throw DecodeError(path: name, reason: "Vorbis decoder returned no samples") }
                for f in 0..<frames {
                    // Vorbis can overshoot full scale slightly; the pipeline promises [-1, 1].
                    base[f * channels + c] = min(max(plane[f], -1), 1)
                }
            }
            delivered += Int64(frames)
            return frames
        }
    }

    /// vorbisfile seeks sample-exactly: it decodes from the packet before the target (whose overlap the
    /// target's packet needs) and drops the samples up to the target.
    public func seek(toFrame frame: Int64) throws {
        let target = max(frame, 0)
        if let total = info.frames, target >= total {
            atEnd = true
            delivered = total
            return
        }
        let result = ov_pcm_seek(file, ogg_int64_t(target))
        guard result == 0 else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): \(Self.describe(result))")
        }
        atEnd = false
        delivered = target
    }

    static func describe(_ code: Int32) -> String {
        switch code {
        case OV_ENOTVORBIS: "not an Ogg Vorbis stream"
        case OV_EBADHEADER: "damaged Vorbis header"
        case OV_EVERSION: "unsupported Vorbis version"
        case OV_ENOTAUDIO: "not an audio stream"
        case OV_EREAD: "read error"
        case OV_EFAULT: "out of memory or internal decoder error"
        case OV_EIMPL: "uses a Vorbis feature this decoder does not support"
        case OV_EBADPACKET, OV_EBADLINK, OV_EINVAL, OV_ENOSEEK: "damaged Ogg Vorbis stream"
        default: "Vorbis decoding failed (error \(code))"
        }
    }
}
