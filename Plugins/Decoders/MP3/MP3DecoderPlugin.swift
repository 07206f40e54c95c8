import CMpg123
public import CrateDomain
import DecoderSupport
public import Foundation

/// MPEG audio through libmpg123, gapless: with the LAME/Xing header that encoders write,
/// mpg123 removes the encoder delay and padding, and a full scan gives the exact length.
public struct MP3DecoderPlugin: DecoderPlugin {
    public let name = "mp3"
    public let suffixes = ["mp3"]
    public let mimeTypes = ["audio/mpeg"]

    /// An ID3v2 tag or an MPEG audio frame header (sync, layer set, bitrate and rate not reserved) at the start.
    public func recognizes(head: Data) -> Bool {
        let b = [UInt8](head.prefix(4))
        guard b.count == 4 else { return false }
        if b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 { return true }
        return b[0] == 0xff && b[1] & 0xe0 == 0xe0 && b[1] & 0x06 != 0 && b[2] & 0xf0 != 0xf0 && b[2] & 0x0c != 0x0c
    }
    public let status: PluginStatus

    public init() {
        status = mpg123Library == MPG123_OK.rawValue
            ? .available
            : .unavailable(reason: "libmpg123 failed to initialise: \(String(cString: mpg123_plain_strerror(mpg123Library)))")
    }

    public func probe(_ url: URL) throws -> ProbedFile {
        _ = try AudioFileCheck.readableSize(url)
        let decoder = try MP3AudioDecoder.open(try FileByteStream(url), keepingPictures: true)
        return ProbedFile(tags: decoder.tags(), info: decoder.info, picture: decoder.picture())
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        _ = try AudioFileCheck.readableSize(url)
        return try MP3AudioDecoder.open(try FileByteStream(url))
    }

    /// Any stream, through mpg123's reader callbacks; a seekable one with a size is scanned for its exact length,
    /// a live one is not (it has no end to count to).
    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        try MP3AudioDecoder.open(stream)
    }
}

/// mpg123's reader callbacks over a `ByteStream` (through `StreamCallbacks`).
enum MP3Input {
    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int = { context, buffer, count in
        StreamCallbacks.from(context)?.read(buffer, count) ?? -1
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, off_t, Int32) -> off_t = { context, offset, whence in
        off_t(StreamCallbacks.from(context)?.seek(Int64(offset), whence: whence) ?? -1)
    }
}

/// mpg123_init is needed (once) only by libmpg123 before 1.27 and harmless after; a global is
/// initialised exactly once, thread-safely.
let mpg123Library: Int32 = mpg123_init()

public final class MP3AudioDecoder: AudioDecoder {
    public let info: StreamInfo
    /// The stream's name (a path or a URL), for errors.
    private let name: String
    private let handle: OpaquePointer
    /// Keeps the stream alive as long as mpg123 may call back into it.
    private let input: StreamCallbacks
    /// Frames handed out so far; reading stops at `info.frames`.
    private var delivered: Int64 = 0
    /// After a seek, mpg123 decodes this many MPEG frames before the target's and drops their samples.
    /// Layer III frames take part of their data from earlier ones (the bit reservoir, up to 511 bytes
    /// back), which at low bitrates spans many frames. Measured with libmpg123 1.31: the default 4 gives
    /// samples off by up to 0.4 at 32 kb/s and 0.57 at 8 kb/s mono; those needed 8 and 24. Decoding 32
    /// frames costs about a millisecond.
    static let seekPreFrames = 32

    /// `keepingPictures` makes mpg123 keep the ID3v2 pictures (APIC) for `picture()`; off for playback,
    /// which has no use for them.
    /// Opens `stream`; when it finds no audio because an ID3v2 tag claims more than the file holds, it reads again
    /// from the first real frame (`MP3Resync`).
    static func open(_ stream: any ByteStream, keepingPictures: Bool = false) throws -> MP3AudioDecoder {
        do {
            return try MP3AudioDecoder(stream: stream, keepingPictures: keepingPictures)
        } catch let error as DecodeError where error.reason.hasPrefix("not an MP3 stream") {
            guard let start = try? MP3Resync.audioStart(of: stream) else { throw error }
            return try MP3AudioDecoder(stream: try OffsetByteStream(stream, from: start), keepingPictures: keepingPictures)
        }
    }

    /// Reads through mpg123's reader callbacks. A stream that can seek and has a size (a file, a file on a web
    /// server) is scanned for its exact length and checked against its LAME header; a live stream is not.
    init(stream: any ByteStream, keepingPictures: Bool = false) throws {
        let name = stream.name
        guard mpg123Library == MPG123_OK.rawValue else {
            throw DecodeError(path: name, reason: "libmpg123 failed to initialise")
        }
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw DecodeError(path: name, reason: "cannot start the MP3 decoder: \(String(cString: mpg123_plain_strerror(error)))")
        }
        // Until `self` is complete, deinit does not run: free by hand on the way out.
        var opened = false
        defer { if !opened { mpg123_delete(handle) } }

        let input = StreamCallbacks(stream)
        func failure(_ what: String) -> DecodeError {
            DecodeError(path: name, reason: "\(what): \(input.reason(else: String(cString: mpg123_strerror(handle))))")
        }
        // Gapless is on by default in current builds; QUIET keeps garbage files from printing to stderr;
        // PICTURE stores APIC frames, which mpg123 otherwise skips.
        let flags = MPG123_GAPLESS.rawValue | MPG123_QUIET.rawValue | (keepingPictures ? MPG123_PICTURE.rawValue : 0)
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(flags), 0)
        mpg123_param2(handle, Int32(MPG123_PREFRAMES.rawValue), Self.seekPreFrames, 0)
        // Float output must be the only format allowed before the first frame is decoded: set after
        // mpg123_getformat, it is ignored for the stream already set up. So allow 32-bit float at
        // every rate and channel count, then read the file's own rate and channels.
        Self.allowFloatOutput(handle)
        let canSeek = input.canSeek
        guard mpg123_replace_reader_handle(handle, MP3Input.read, canSeek ? MP3Input.seek : nil, nil) == MPG123_OK.rawValue,
              mpg123_open_handle(handle, input.context) == MPG123_OK.rawValue else { throw failure("cannot open") }

        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue else {
            if input.failure != nil { throw failure("cannot read") }
            // On a readable, non-empty stream this means no MPEG frame was found in the resync window.
            throw DecodeError(path: name, reason: "not an MP3 stream: no MPEG audio frames found")
        }
        guard rate > 0, channels > 0, encoding == Int32(MPG123_ENC_FLOAT_32.rawValue) else {
            throw DecodeError(path: name, reason: "unsupported MPEG stream format (\(rate) Hz, \(channels) ch)")
        }
        // No second mpg123_format_none/mpg123_format for just this rate: measured, that makes mpg123
        // silently resample a concatenated file's later part, longer than the scanned length. Left
        // open, a format change is reported (MPG123_NEW_FORMAT) and `read` refuses it.

        var frames: Int64?
        if canSeek {
            // The LAME/Xing header gives the intended length; the scan counts the frames actually there.
            var delay = -1
            mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &delay, nil)
            let declaredFrames = mpg123_framelength(handle)
            guard mpg123_scan(handle) == MPG123_OK.rawValue else { throw failure("cannot scan the stream") }
            let scannedFrames = mpg123_framelength(handle)
            let length = mpg123_length(handle)
            guard length >= 0 else { throw failure("cannot determine the length") }
            // Only the LAME header (which carries the encoder delay) makes the declared count trustworthy;
            // one MPEG frame of slack allows for encoders that count the header frame itself.
            if delay >= 0, declaredFrames > 0, scannedFrames >= 0, scannedFrames + 1 < declaredFrames {
                throw DecodeError(path: name, reason: "truncated: \(scannedFrames) of \(declaredFrames) MPEG frames present")
            }
            frames = Int64(length)
        }
        self.name = name
        self.handle = handle
        self.input = input
        self.info = StreamInfo(codec: "mp3", sampleRate: rate, channels: Int(channels), bitsPerSample: nil, frames: frames)
        opened = true
    }

    /// 32-bit float at every rate and channel count; must be set before the first frame is decoded.
    static func allowFloatOutput(_ handle: OpaquePointer) {
        mpg123_format_none(handle)
        var rateList: UnsafePointer<Int>?
        var rateCount = 0
        mpg123_rates(&rateList, &rateCount)
        guard let rateList else { return }
        for i in 0..<rateCount {
            mpg123_format(handle, rateList[i], Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// ID3v2 text frames by id (TXXX with descriptions), then ID3v1 to fill what v2 left empty.
    func tags() -> TrackTags {
        var mapper = TagMapper()
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue else { return mapper.tags }
        if let v2 = v2?.pointee {
            if let texts = v2.text {
                for i in 0..<v2.texts {
                    // ID3v2.4 keeps several values in one frame, separated by zeros: a genre keeps them all.
                    let id = Self.frameID(texts[i].id)
                    for value in Self.strings(texts[i].text) { mapper.id3Frame(id, value) }
                }
            }
            if let extras = v2.extra {
                for i in 0..<v2.extras {
                    mapper.id3Frame("TXXX", Self.string(extras[i].text), description: Self.string(extras[i].description))
                }
            }
        }
        if var v1 = v1?.pointee {
            // TagMapper keeps the first value it sees, so these only fill gaps left by ID3v2.
            mapper.id3Frame("TIT2", Self.latin1(&v1.title))
            mapper.id3Frame("TPE1", Self.latin1(&v1.artist))
            mapper.id3Frame("TALB", Self.latin1(&v1.album))
            mapper.id3Frame("TYER", Self.latin1(&v1.year))
            if v1.genre != 255, mapper.tags.genre == nil { mapper.id3Frame("TCON", "(\(v1.genre))") }
            // ID3v1.1: a zero byte before the last comment byte marks that byte as the track number.
            if v1.comment.28 == 0, v1.comment.29 != 0 { mapper.id3Frame("TRCK", String(UInt8(bitPattern: v1.comment.29))) }
        }
        return mapper.tags
    }

    /// The ID3v2 front cover (APIC type 3), else the first picture; nil unless opened `keepingPictures`.
    func picture() -> EmbeddedPicture? {
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue, let v2 = v2?.pointee,
              let pictures = v2.picture else { return nil }
        var cover = CoverChoice()
        for i in 0..<v2.pictures where !cover.isSettled {
            let picture = pictures[i]
            cover.consider(type: UInt32(UInt8(bitPattern: picture.type))) {
                guard let data = picture.data else { return nil }
                return EmbeddedPicture(copying: UnsafeRawBufferPointer(start: data, count: picture.size))
            }
        }
        return cover.picture
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = info.channels
        var capacity = buffer.count / channels
        // Stop at the scanned length: this libmpg123 reports a reader error, not MPG123_DONE, at end of file.
        if let total = info.frames { capacity = Int(min(Int64(capacity), max(0, total - delivered))) }
        guard capacity > 0, let base = buffer.baseAddress else { return 0 }
        let frameBytes = channels * MemoryLayout<Float>.size
        var done = 0
        while true {
            let result = mpg123_read(handle, base, capacity * frameBytes, &done)
            if result == MPG123_NEW_FORMAT.rawValue {
                // A concatenated file can switch rate or channels; the output format cannot change mid-track.
                var rate = 0
                var channels: Int32 = 0
                var encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                guard rate == info.sampleRate, Int(channels) == info.channels, encoding == Int32(MPG123_ENC_FLOAT_32.rawValue) else {
                    throw DecodeError(path: name, reason: "the stream changes format at frame \(delivered) (to \(rate) Hz, \(channels) ch)")
                }
                if done == 0 { continue }
            }
            if result == MPG123_OK.rawValue || result == MPG123_DONE.rawValue || done > 0 { break }
            // Unscanned (a stream): the end of the bytes is the end, however mpg123 words it.
            if info.frames == nil, input.reachedEnd, input.failure == nil { break }
            throw DecodeError(path: name, reason: "decode error at frame \(delivered): \(input.reason(else: String(cString: mpg123_strerror(handle))))")
        }
        let frames = done / frameBytes
        delivered += Int64(frames)
        for i in 0..<frames * channels { base[i] = min(max(base[i], -1), 1) }  // MP3 can overshoot full scale.
        return frames
    }

    /// With the full index from `mpg123_scan`, mpg123 seeks to the MPEG frame holding the target, decodes
    /// the frames before it again to refill the bit reservoir, and drops samples up to the target; in
    /// gapless mode offsets count from after the encoder delay, as `read` does.
    public func seek(toFrame frame: Int64) throws {
        let target = max(frame, 0)
        if let total = info.frames, target >= total {
            // `read` stops at the scanned length, so nothing is left to decode; mpg123 need not move.
            delivered = total
            return
        }
        guard let offset = Int(exactly: target) else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): out of range")
        }
        let reached = mpg123_seek(handle, offset, SEEK_SET)
        guard reached >= 0 else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): \(input.reason(else: String(cString: mpg123_strerror(handle))))")
        }
        // Anywhere else would shift every later sample; mpg123 reports where it actually is.
        guard reached == offset else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): mpg123 moved to frame \(reached)")
        }
        delivered = target
    }

    /// Every zero-separated value of a text frame.
    private static func strings(_ s: mpg123_string) -> [String] {
        guard let p = s.p, s.fill > 0 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: p, count: s.fill)
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func string(_ s: mpg123_string) -> String {
        // mpg123 stores UTF-8; `fill` may count more than one terminating zero, and ID3v2.4 separates
        // multiple values with zeros, so the text is what comes before the first zero.
        guard let p = s.p, s.fill > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: p, count: s.fill)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func frameID(_ id: (CChar, CChar, CChar, CChar)) -> String {
        String(decoding: [id.0, id.1, id.2, id.3].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ID3v1 fields are fixed-width Latin-1, padded with zeros or spaces.
    private static func latin1<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        }
    }
}
