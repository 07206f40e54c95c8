import CFFmpeg
public import CrateDomain
import Foundation

/// libavformat's AVIO callbacks over a `ByteStream` (through `StreamCallbacks`).
enum FFmpegInput {
    /// Bytes read, AVERROR_EOF at the end (FFmpeg 5 no longer takes 0 for it), an error when the stream failed
    /// (the stream's own error is kept in the `StreamCallbacks` for the message).
    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { context, buffer, count in
        guard let input = StreamCallbacks.from(context) else { return crate_averror_eio() }
        let n = input.read(buffer, Int(count))
        if n < 0 { return crate_averror_eio() }
        return n == 0 ? crate_averror_eof() : Int32(n)
    }

    /// `whence` is lseek's, or AVSEEK_SIZE (the total size, an error when unknown), with the AVSEEK_FORCE hint.
    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { context, offset, whence in
        guard let input = StreamCallbacks.from(context) else { return Int64(crate_averror_eio()) }
        let how = whence & ~Int32(AVSEEK_FORCE)
        if how == AVSEEK_SIZE { return input.stream.size ?? Int64(crate_averror_eio()) }
        let position = input.seek(offset, whence: how)
        return position >= 0 ? position : Int64(crate_averror_eio())
    }
}

/// The containers a plugin opens through FFmpeg, by libavformat's short names ("mov", "ogg", …), and what to say of
/// anything else.
public struct FFmpegFormats: Sendable {
    public let names: Set<String>
    /// Why other data is refused: "not a format the ffmpeg decoder reads (…)".
    public let refusal: String

    public init(_ names: Set<String>, refusal: String) {
        self.names = names
        self.refusal = refusal
    }
}

/// A C string from FFmpeg as a Swift string; nil for a null pointer.
func ffmpegString(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// One stream decoded by FFmpeg into interleaved Float32 at the source's rate and channel count (libswresample
/// converts the sample format only; nothing is resampled or remixed).
///
/// Timeline: positions are frames of the presentation, 0 being its first sample after the encoder delay. The
/// decoder drops the delay itself (FFmpeg's skip-samples side data, from the MP4 edit list or iTunSMPB); `read`
/// drops what lies before a seek target and, when the exact length is known, the padding after it.
public final class FFmpegAudioDecoder: AudioDecoder {
    public private(set) var info = StreamInfo(codec: "", sampleRate: 0, channels: 0)
    /// The stream's name (a path or a URL), for errors.
    private let name: String
    private let context: FFmpegContext
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let sampleRate: Int
    private let channels: Int
    /// Samples lossy codecs decode before a seek target and drop: an AAC frame needs the one before it
    /// (overlapping transforms), HE-AAC's SBR a few more; 8192 is eight AAC frames, a few milliseconds of work.
    /// With it a seek gives exactly the samples of a straight decode (AAC-LC, FFmpeg 5.1: the tests check it).
    private let preRoll: Int64
    /// The exact length when the container states it to the sample (MP4, WavPack, APE); nil otherwise, and then
    /// nothing is trimmed at the end.
    private var exactLength: Int64?
    /// The presentation's first sample, in the stream's time base: the first decoded frame's timestamp (after the
    /// decoder dropped the encoder delay), plus any delay FFmpeg did not drop (iTunSMPB without an edit list).
    private var origin: Int64 = 0
    /// The first packet's timestamp: a seek to the start goes there, so FFmpeg drops the encoder delay again.
    private var firstPacketTime: Int64?

    /// Decoded samples not yet handed out, interleaved, from `pendingOffset` on.
    private var pending: [Float] = []
    private var pendingOffset = 0
    /// The position the next decoded frame starts at; nil right after a seek (its timestamp says).
    private var nextPosition: Int64? = 0
    /// Where a frame without a timestamp is taken to start right after a seek.
    private var positionWithoutTime: Int64 = 0
    /// Samples before this position are dropped (a seek target).
    private var dropUntil: Int64 = 0
    /// The demuxer is done: the decoder has been told to flush.
    private var draining = false
    /// The decoder has handed out its last frame.
    private var finished = false
    /// Set by a seek to the length or past it: `read` returns 0 until the next seek.
    private var atEnd = false
    /// An error met after `read` had written some frames, thrown by the next `read`.
    private var deferredError: (any Error)?
    /// Packets the codec refused as damaged (skipped, as players do), in all and in a row.
    private var damagedPackets = 0
    private var damagedInARow = 0

    /// Opens `stream` when libavformat sees one of `formats` in it (its short names: "mov", "ogg", …): each plugin
    /// opens its own containers, and FFmpeg's many other demuxers stay out of reach. `codec`, when given, is the
    /// only codec accepted, by FFmpeg's name for it (the Vorbis plugin's Ogg files hold "vorbis", not Opus or FLAC).
    /// `length` is the exact length when the caller has counted it (vorbisfile, from Ogg's granule positions).
    public init(stream: any ByteStream, formats: FFmpegFormats, codec wanted: String? = nil, length: Int64? = nil) throws {
        let name = stream.name
        let ff = try FFmpegLibrary.functions(for: name)
        // A file cut short is named as such before libavformat gives its vaguer reason.
        if formats.names.contains("mov"), stream.localFile != nil, let size = stream.size {
            let cut = try Self.describing(name) { () throws -> (type: String, offset: Int64)? in
                defer { try? stream.seek(to: 0) }
                return try MP4Boxes.cutBox(in: stream, size: size)
            }
            if let cut {
                throw DecodeError(path: name, reason: "truncated: the file ends inside its '\(cut.type)' box (which starts at byte "
                    + "\(cut.offset) of \(size)): an incomplete copy or download?")
            }
        }

        let context = try FFmpegContext(input: StreamCallbacks(stream), name: name, formats: formats, ff: ff,
                                        keepsPadding: length != nil)
        let format = context.format
        // The best audio stream and a decoder for it; every other stream (a cover, a video) is skipped unread.
        var codec: UnsafePointer<AVCodec>?
        let index = ff.av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard index >= 0, let streams = format.pointee.streams, let stream = streams[Int(index)],
              let parameters = stream.pointee.codecpar else {
            if index == crate_averror_decoder_not_found() {
                throw DecodeError(path: name, reason: "FFmpeg has no decoder for this audio (\(Self.codecNames(format, ff)))")
            }
            throw DecodeError(path: name, reason: "no audio stream in this \(context.formatName) file")
        }
        for i in 0..<Int(format.pointee.nb_streams) where i != Int(index) { streams[i]?.pointee.discard = AVDISCARD_ALL }
        // An MP4 whose index (moov) follows its audio: once a stream that cannot seek has been read to the index,
        // the audio is behind it, beyond what FFmpeg's buffer still holds.
        if context.isMP4, !context.input.canSeek, let first = ff.avformat_index_get_entry(stream, 0)?.pointee.pos,
           let pb = format.pointee.pb, let end = pb.pointee.buf_end, let buffer = pb.pointee.buffer,
           first < pb.pointee.pos - Int64(end - buffer) {
            throw DecodeError(path: name, reason: "this MP4 stream has its index (the moov box) after the audio, which a stream "
                + "that cannot seek cannot go back to (files for streaming are written with the index first: faststart)")
        }
        guard let codec else { throw DecodeError(path: name, reason: "FFmpeg has no decoder for this audio") }
        if let wanted, ffmpegString(ff.avcodec_get_name(parameters.pointee.codec_id)) != wanted {
            throw DecodeError(path: name, reason: formats.refusal)
        }
        let codecContext = try context.openCodec(codec, parameters: parameters, timeBase: stream.pointee.time_base)
        let rate = Int(codecContext.pointee.sample_rate), channels = Int(codecContext.pointee.ch_layout.nb_channels)
        guard rate > 0, channels > 0 else {
            throw DecodeError(path: name, reason: "damaged header: \(channels) channels at \(rate) Hz")
        }
        let codecID = parameters.pointee.codec_id
        let properties = ff.avcodec_descriptor_get(codecID)?.pointee.props ?? 0
        let lossless = properties & AV_CODEC_PROP_LOSSLESS != 0

        self.name = name
        self.context = context
        streamIndex = index
        timeBase = stream.pointee.time_base
        sampleRate = rate
        self.channels = channels
        preRoll = lossless ? 0 : 8192

        // The first frame says where the presentation starts (the encoder delay dropped) and that the codec works.
        guard try decodeFrame() else {
            throw DecodeError(path: name, reason: context.input.reason(else: "no audio in this \(context.formatName) file"))
        }
        let firstFrameTime = context.frameTime
        origin = firstFrameTime ?? 0
        exactLength = length ?? lengthFromHeaders(firstFrameTime: firstFrameTime, duration: stream.pointee.duration)
        // The frame just decoded is converted now and handed out first by `read` (the iTunSMPB delay dropped).
        nextPosition = firstFrameTime == nil ? 0 : nil
        try takeFrame()

        let bits = codecContext.pointee.bits_per_raw_sample > 0 ? codecContext.pointee.bits_per_raw_sample : parameters.pointee.bits_per_raw_sample
        info = StreamInfo(codec: ffmpegString(ff.avcodec_get_name(codecID)) ?? "unknown", sampleRate: rate, channels: channels,
                          bitsPerSample: lossless && bits > 0 ? Int(bits) : nil, frames: exactLength)
    }

    /// The exact length, when the container states it: the media runs from the first packet for the stream's
    /// duration (MP4: the media header's, which counts every sample; the edit list's is often in milliseconds only),
    /// and the presentation from `origin` to there, less the padding iTunSMPB or a shorter movie duration declares.
    private func lengthFromHeaders(firstFrameTime: Int64?, duration: Int64) -> Int64? {
        guard timeBase.num == 1, Int(timeBase.den) == sampleRate, context.isSampleExact, let firstPacketTime,
              firstFrameTime != nil, duration != crate_av_nopts_value(), duration > 0 else { return nil }
        var frames = firstPacketTime + duration - origin
        if context.isMP4, let gapless = FFmpegMetadata.iTunesGapless(context.format.pointee.metadata, ff) {
            // No edit list made FFmpeg drop the encoder delay: drop it here.
            if origin == firstPacketTime, gapless.priming > 0, gapless.priming < frames {
                origin += gapless.priming
                frames -= gapless.priming
            }
            // The original length, unless the tag belongs to other audio (a file edited since).
            if gapless.frames <= frames, frames - gapless.frames <= gapless.padding + 2048 { frames = gapless.frames }
        } else if context.isMP4, let movie = context.movieDurationMicroseconds {
            // The movie header holds the edit list's duration in the movie's coarser clock: shorter than the media by
            // more than one tick of it (1/600 s at worst) means the end is trimmed (padding), to within that tick.
            let presented = (movie * Int64(sampleRate) + 500_000) / 1_000_000
            if presented > 0, presented + Int64(sampleRate / 600) + 2 < frames { frames = presented }
        }
        return frames > 0 ? frames : nil
    }

    /// Runs `body`, turning a stream error into a `DecodeError` naming the stream.
    private static func describing<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DecodeError { throw error } catch {
            throw DecodeError(path: name, reason: ErrorText.describe(error))
        }
    }

    private static func codecNames(_ format: UnsafeMutablePointer<AVFormatContext>, _ ff: FFmpegFunctions) -> String {
        guard let streams = format.pointee.streams else { return "unknown codec" }
        let names = (0..<Int(format.pointee.nb_streams)).compactMap { i -> String? in
            guard let parameters = streams[i]?.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
            return ffmpegString(ff.avcodec_get_name(parameters.pointee.codec_id))
        }
        return names.isEmpty ? "unknown codec" : names.joined(separator: ", ")
    }

    public func tags() -> TrackTags {
        let format = context.format
        let stream = format.pointee.streams?[Int(streamIndex)]
        return FFmpegMetadata.tags(format: format.pointee.metadata, stream: stream?.pointee.metadata, ff)
    }

    public func picture() -> EmbeddedPicture? { FFmpegMetadata.picture(context.format, ff) }

    private var ff: FFmpegFunctions { context.ff }

    // MARK: Decoding

    /// Decodes the next frame into `context.frame`; false at the end of the stream.
    private func decodeFrame() throws -> Bool {
        guard let codec = context.codec else { return false }
        while true {
            let received = ff.avcodec_receive_frame(codec, context.frame)
            if received == 0 {
                damagedInARow = 0
                return true
            }
            if received == crate_averror_eof() { return false }
            if received == crate_averror_invaliddata() {
                try countDamaged()
                continue
            }
            guard received == crate_averror_eagain() else { throw failure("decoding failed", received) }

            // The decoder wants another packet.
            let read = ff.av_read_frame(context.format, context.packet)
            if read < 0 {
                if let failure = context.input.failure { throw DecodeError(path: name, reason: ErrorText.describe(failure)) }
                guard read == crate_averror_eof() || context.format.pointee.pb?.pointee.eof_reached != 0 else {
                    throw failure("reading failed", read)
                }
                // The end: flush the decoder (once), then take what it still holds.
                guard !draining else { return false }
                draining = true
                let sent = ff.avcodec_send_packet(codec, nil)
                guard sent == 0 || sent == crate_averror_eof() else { throw failure("decoding failed", sent) }
                continue
            }
            defer { ff.av_packet_unref(context.packet) }
            guard context.packet.pointee.stream_index == streamIndex else { continue }
            if firstPacketTime == nil, context.packet.pointee.pts != crate_av_nopts_value() {
                firstPacketTime = context.packet.pointee.pts
            }
            let sent = ff.avcodec_send_packet(codec, context.packet)
            if sent == crate_averror_invaliddata() {
                try countDamaged()
            } else if sent < 0, sent != crate_averror_eagain() {
                throw failure("decoding failed", sent)
            }
        }
    }

    /// A damaged packet is skipped, as players do; a stream of nothing but damage is refused rather than read on.
    private func countDamaged() throws {
        damagedPackets += 1
        damagedInARow += 1
        if damagedInARow >= 64 {
            throw DecodeError(path: name, reason: "damaged stream: \(damagedInARow) packets in a row the decoder cannot read")
        }
    }

    private func failure(_ what: String, _ code: Int32) -> DecodeError {
        DecodeError(path: name, reason: "\(what): \(context.input.reason(else: FFmpegLibrary.describe(code)))")
    }

    /// Converts the decoded frame into `pending`, which must be used up, and drops what lies before `dropUntil`,
    /// before the presentation's start or past the exact length.
    private func takeFrame() throws {
        let frame = context.frame
        defer { ff.av_frame_unref(frame) }
        let count = Int(frame.pointee.nb_samples)
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        guard count > 0 else { return }
        guard Int(frame.pointee.ch_layout.nb_channels) == channels, Int(frame.pointee.sample_rate) == sampleRate else {
            throw DecodeError(path: name, reason: "the stream changes format at frame \(nextPosition ?? 0) "
                + "(to \(frame.pointee.sample_rate) Hz, \(frame.pointee.ch_layout.nb_channels) ch)")
        }
        let start: Int64
        if let nextPosition {
            start = nextPosition
        } else if let time = context.frameTime {
            start = ff.av_rescale_q_rnd(time - origin, timeBase, AVRational(num: 1, den: Int32(sampleRate)), AV_ROUND_NEAR_INF)
        } else {
            start = positionWithoutTime
        }
        let end = start + Int64(count)
        nextPosition = end
        // Keep [max(start, dropUntil, 0), min(end, length)).
        let first = max(start, dropUntil, 0), last = min(end, exactLength ?? .max)
        guard first < last else { return }
        pending.append(contentsOf: repeatElement(0, count: count * channels))
        let converted = try pending.withUnsafeMutableBufferPointer { out in try context.convert(frame, into: out) }
        guard converted == count else {
            throw DecodeError(path: name, reason: "sample conversion gave \(converted) of \(count) frames")
        }
        pendingOffset = Int(first - start) * channels
        pending.removeLast(Int(end - last) * channels)
        // AAC and WMA can overshoot full scale slightly; the pipeline promises [-1, 1].
        let from = pendingOffset
        pending.withUnsafeMutableBufferPointer { buffer in
            for i in from..<buffer.count { buffer[i] = min(max(buffer[i], -1), 1) }
        }
    }

    /// Fills `buffer` as far as the stream goes (an AAC frame is only 1024 samples: the engine hands each read on as
    /// one chunk). An error after some frames were written is thrown by the next call, so those frames still play.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let capacity = buffer.count / channels
        guard capacity > 0, let base = buffer.baseAddress, !atEnd else { return 0 }
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        var filled = 0
        while filled < capacity {
            do {
                guard try refill() else { break }
            } catch {
                if filled == 0 { throw error }
                deferredError = error
                break
            }
            let frames = min(capacity - filled, (pending.count - pendingOffset) / channels)
            let offset = pendingOffset
            pending.withUnsafeBufferPointer { pending in
                guard let source = pending.baseAddress else { return }
                (base + filled * channels).update(from: source + offset, count: frames * channels)
            }
            pendingOffset += frames * channels
            filled += frames
        }
        return filled
    }

    /// Decodes until samples are pending; false at the end.
    private func refill() throws -> Bool {
        while pendingOffset >= pending.count {
            if finished { return false }
            if let exactLength, let next = nextPosition, next >= exactLength {
                finished = true
                return false
            }
            guard try decodeFrame() else {
                finished = true
                // A file that comes up short says so (an index promising more than the data holds).
                if let exactLength, let next = nextPosition, next < exactLength {
                    let damage = damagedPackets > 0 ? " (\(damagedPackets) damaged packets skipped)" : ""
                    throw DecodeError(path: name, reason: "truncated: the audio ends at frame \(next) of \(exactLength)\(damage)")
                }
                return false
            }
            try takeFrame()
        }
        return true
    }

    /// Reads to the end and returns how many frames that was (for lengths no header states).
    public func countRemainingFrames() throws -> Int64 {
        var total = Int64((pending.count - pendingOffset) / channels)
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        while try decodeFrame() {
            total += Int64(context.frame.pointee.nb_samples)
            ff.av_frame_unref(context.frame)
        }
        finished = true
        return total
    }

    /// Sample-exact: FFmpeg seeks to the packet at or before the target less the pre-roll, the decoder starts afresh
    /// there, and the samples up to the target are decoded and dropped. The first decoded frame's timestamp says
    /// where the decode stands.
    public func seek(toFrame frame: Int64) throws {
        let target = max(frame, 0)
        guard context.input.canSeek || exactLength.map({ target >= $0 }) == true else {
            throw DecodeError(path: name, reason: "cannot seek to frame \(target): the stream cannot seek (a live stream)")
        }
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        deferredError = nil
        if let exactLength, target >= exactLength {
            atEnd = true
            return
        }
        let from = max(0, target - preRoll)
        // To the start: the first packet, so that FFmpeg drops the encoder delay again.
        let timestamp = from == 0
            ? min(firstPacketTime ?? origin, origin)
            : origin + ff.av_rescale_q_rnd(from, AVRational(num: 1, den: Int32(sampleRate)), timeBase, AV_ROUND_DOWN)
        let result = ff.av_seek_frame(context.format, streamIndex, timestamp, AVSEEK_FLAG_BACKWARD)
        guard result >= 0 else { throw failure("cannot seek to frame \(target)", result) }
        // A fresh decoder rather than a flushed one: FFmpeg's AAC decoder fills noise-coded bands (PNS) from a
        // random generator that a flush does not reset, so only a fresh one decodes from the start exactly as the
        // first time. Elsewhere those bands are noise of the right level, not the straight decode's samples.
        try context.reopenCodec()
        atEnd = false
        finished = false
        draining = false
        nextPosition = nil
        positionWithoutTime = from
        dropUntil = target
        defer { dropUntil = 0 }
        // Decoded up to the target now, so that a seek into a missing part fails here rather than in `read`.
        while pendingOffset >= pending.count {
            guard try decodeFrame() else {
                finished = true
                if let exactLength {
                    throw DecodeError(path: name, reason: "cannot seek to frame \(target): the audio ends at frame "
                        + "\(nextPosition.map { String($0) } ?? "?") of \(exactLength)")
                }
                return
            }
            try takeFrame()
            if let exactLength, let next = nextPosition, next >= exactLength { return }
        }
    }
}

/// The FFmpeg objects of one open stream, freed together (in the order FFmpeg needs) when the decoder goes.
final class FFmpegContext {
    /// The stream FFmpeg reads through the AVIO callbacks, kept as long as they may be called.
    let input: StreamCallbacks
    let name: String
    let format: UnsafeMutablePointer<AVFormatContext>
    private var io: UnsafeMutablePointer<AVIOContext>?
    private(set) var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    /// The sample format `resampler` converts from.
    private var resamplerFormat: Int32 = -1
    let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    /// libavformat's short name of the container ("mov", "wv", "ape", "asf", "aac").
    let formatName: String
    let isMP4: Bool
    /// Whether the container states its length to the sample (its header counts samples, not time).
    let isSampleExact: Bool
    /// The container's own duration, read before libavformat estimates anything (MP4: the movie header's).
    let movieDurationMicroseconds: Int64?

    let ff: FFmpegFunctions
    /// The decoder keeps the samples the demuxer marks as padding at the end: the caller trims to a length it
    /// counted. FFmpeg 5.1's Ogg demuxer marks 128 samples too many in files whose first Vorbis packet is short
    /// (ffmpeg's own libvorbis encodes: 19,872 of 20,000 frames come out, where oggdec gives 20,000).
    private let keepsPadding: Bool
    /// The containers whose headers count samples exactly.
    static let sampleExactFormats: Set<String> = ["mov", "mp4", "m4a", "wv", "ape"]

    init(input: StreamCallbacks, name: String, formats: FFmpegFormats, ff: FFmpegFunctions, keepsPadding: Bool) throws {
        guard let packet = ff.av_packet_alloc() else { throw DecodeError(path: name, reason: "out of memory") }
        guard let frame = ff.av_frame_alloc() else {
            var unused: UnsafeMutablePointer<AVPacket>? = packet
            ff.av_packet_free(&unused)
            throw DecodeError(path: name, reason: "out of memory")
        }
        // Until `self` is complete, deinit does not run: free by hand on the way out.
        var io: UnsafeMutablePointer<AVIOContext>?
        var opening: UnsafeMutablePointer<AVFormatContext>?
        var done = false
        defer {
            if !done {
                ff.avformat_close_input(&opening)
                Self.free(&io, ff)
                var unusedPacket: UnsafeMutablePointer<AVPacket>? = packet
                ff.av_packet_free(&unusedPacket)
                var unusedFrame: UnsafeMutablePointer<AVFrame>? = frame
                ff.av_frame_free(&unusedFrame)
            }
        }

        let size: Int32 = 64 * 1024
        guard let buffer = ff.av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else {
            throw DecodeError(path: name, reason: "out of memory")
        }
        let seek: (@convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64)? = input.canSeek ? FFmpegInput.seek : nil
        io = ff.avio_alloc_context(buffer, size, 0, input.context, FFmpegInput.read, nil, seek)
        guard let pb = io else {
            ff.av_free(buffer)
            throw DecodeError(path: name, reason: "out of memory")
        }

        // What the bytes are, from the first few KiB (not the name: a suffix would make FFmpeg take noise named .aac
        // for AAC); only the containers this plugin is for go on.
        var detected: UnsafePointer<AVInputFormat>?
        let probed = ff.av_probe_input_buffer2(pb, &detected, nil, nil, 0, 0)
        if let failure = input.failure { throw DecodeError(path: name, reason: ErrorText.describe(failure)) }
        guard probed >= 0, let detected else {
            throw DecodeError(path: name, reason: probed == crate_averror_eof() ? "the stream is empty" : formats.refusal)
        }
        let names = (ffmpegString(detected.pointee.name) ?? "").split(separator: ",").map(String.init)
        guard names.contains(where: formats.names.contains) else {
            let seen = ffmpegString(detected.pointee.long_name) ?? names.first ?? "something else"
            throw DecodeError(path: name, reason: "\(formats.refusal); FFmpeg sees \(seen)")
        }

        guard let allocated = ff.avformat_alloc_context() else { throw DecodeError(path: name, reason: "out of memory") }
        opening = allocated
        allocated.pointee.pb = pb
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var options: OpaquePointer?
        // The MP4 edit list is applied as a start (the encoder delay, dropped by the decoder) rather than by
        // rewriting the index, so the media header's exact length stays visible (see `lengthFromHeaders`).
        _ = ff.av_dict_set(&options, "advanced_editlist", "0", 0)
        let openResult = ff.avformat_open_input(&opening, name, detected, &options)
        ff.av_dict_free(&options)
        guard openResult >= 0, let format = opening else {
            // avformat_open_input frees the context on failure (not the custom AVIO): `opening` is nil now.
            throw DecodeError(path: name, reason: input.reason(else: Self.describe(openResult, names)))
        }
        let movie = format.pointee.duration
        movieDurationMicroseconds = movie != crate_av_nopts_value() && movie > 0 ? movie : nil
        let found = ff.avformat_find_stream_info(format, nil)
        guard found >= 0 else {
            throw DecodeError(path: name, reason: input.reason(else: "cannot read the stream: \(FFmpegLibrary.describe(found))"))
        }
        self.input = input
        self.name = name
        self.ff = ff
        self.keepsPadding = keepsPadding
        self.format = format
        self.io = io
        self.packet = packet
        self.frame = frame
        formatName = names.first ?? "unknown"
        isMP4 = names.contains("mov")
        isSampleExact = names.contains(where: Self.sampleExactFormats.contains)
        done = true
    }

    private static func describe(_ code: Int32, _ names: [String]) -> String {
        if code == crate_averror_invaliddata() {
            return names.contains("mov") ? "damaged MP4 file: its index (the moov box) is missing or unreadable"
                : "damaged \(names.first ?? "") stream"
        }
        return FFmpegLibrary.describe(code)
    }

    /// What `openCodec` opened, for `reopenCodec`.
    private var opened: (decoder: UnsafePointer<AVCodec>, parameters: UnsafeMutablePointer<AVCodecParameters>, timeBase: AVRational)?

    /// Opens the decoder for a stream with `parameters`, timestamps in `timeBase`.
    @discardableResult
    func openCodec(_ decoder: UnsafePointer<AVCodec>, parameters: UnsafeMutablePointer<AVCodecParameters>,
                   timeBase: AVRational) throws -> UnsafeMutablePointer<AVCodecContext> {
        ff.avcodec_free_context(&codec)
        opened = (decoder, parameters, timeBase)
        guard let context = ff.avcodec_alloc_context3(decoder) else { throw DecodeError(path: name, reason: "out of memory") }
        codec = context
        var result = ff.avcodec_parameters_to_context(context, parameters)
        if result >= 0 {
            context.pointee.pkt_timebase = timeBase
            // Skip-samples side data is then left on the frames, unapplied (Ogg's is for the end only).
            if keepsPadding { context.pointee.flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL }
            // Decoders that can (ALAC, WavPack, APE…) decode several frames at once, one thread per core, as the
            // ffmpeg command does: the same samples, a few frames later, at twice the speed on two cores.
            if decoder.pointee.capabilities & AV_CODEC_CAP_FRAME_THREADS != 0 {
                context.pointee.thread_count = 0
                context.pointee.thread_type = FF_THREAD_FRAME
            }
            result = ff.avcodec_open2(context, decoder, nil)
        }
        guard result >= 0 else {
            throw DecodeError(path: name, reason: "cannot start the \(ffmpegString(decoder.pointee.name) ?? "") decoder: \(FFmpegLibrary.describe(result))")
        }
        return context
    }

    /// Replaces the decoder with a fresh one, as it was first opened.
    func reopenCodec() throws {
        guard let opened else { return }
        try openCodec(opened.decoder, parameters: opened.parameters, timeBase: opened.timeBase)
    }

    /// The decoded frame's timestamp, or nil when it has none.
    var frameTime: Int64? {
        let none = crate_av_nopts_value()
        let pts = frame.pointee.pts != none ? frame.pointee.pts : frame.pointee.best_effort_timestamp
        return pts != none ? pts : nil
    }

    /// Converts `frame` to interleaved floats in `out` (room for all of it); the frames converted.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, into out: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let format = frame.pointee.format
        if resampler == nil || resamplerFormat != format {
            ff.swr_free(&resampler)
            var inLayout = frame.pointee.ch_layout, outLayout = frame.pointee.ch_layout
            let rate = frame.pointee.sample_rate
            let made = ff.swr_alloc_set_opts2(&resampler, &outLayout, AV_SAMPLE_FMT_FLT, rate,
                                           &inLayout, AVSampleFormat(rawValue: format), rate, 0, nil)
            guard made >= 0, resampler != nil, ff.swr_init(resampler) >= 0 else {
                ff.swr_free(&resampler)
                let formatName = ffmpegString(ff.av_get_sample_fmt_name(AVSampleFormat(rawValue: format))) ?? "an unknown format"
                throw DecodeError(path: name, reason: "cannot convert samples from \(formatName)")
            }
            resamplerFormat = format
        }
        var target = UnsafeMutableRawPointer(out.baseAddress)?.assumingMemoryBound(to: UInt8.self)
        let source = UnsafeMutableRawPointer(frame.pointee.extended_data)?.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let room = Int32(out.count / max(1, Int(frame.pointee.ch_layout.nb_channels)))
        let converted = ff.swr_convert(resampler, &target, room, source, frame.pointee.nb_samples)
        guard converted >= 0 else {
            throw DecodeError(path: name, reason: "sample conversion failed: \(FFmpegLibrary.describe(converted))")
        }
        return Int(converted)
    }

    private static func free(_ io: inout UnsafeMutablePointer<AVIOContext>?, _ ff: FFmpegFunctions) {
        guard let context = io else { return }
        // FFmpeg may have replaced the buffer it was given: free the one it holds now.
        ff.av_freep(&context.pointee.buffer)
        ff.avio_context_free(&io)
    }

    deinit {
        ff.avcodec_free_context(&codec)
        ff.swr_free(&resampler)
        var closing: UnsafeMutablePointer<AVFormatContext>? = format
        ff.avformat_close_input(&closing)
        Self.free(&io, ff)
        var unusedPacket: UnsafeMutablePointer<AVPacket>? = packet
        ff.av_packet_free(&unusedPacket)
        var unusedFrame: UnsafeMutablePointer<AVFrame>? = frame
        ff.av_frame_free(&unusedFrame)
    }
}
