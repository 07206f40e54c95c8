import CFLAC
public import CrateDomain
import DecoderSupport
public import Foundation

/// Native FLAC through libFLAC. STREAMINFO gives the exact length; integer samples become floats
/// by dividing by 2^(bits-1), which is exact for every depth up to 24 bits.
public struct FLACDecoderPlugin: DecoderPlugin {
    public let name = "flac"
    public let suffixes = ["flac"]
    public let mimeTypes = ["audio/flac", "audio/x-flac"]

    /// `fLaC`, also after an ID3v2 tag (some taggers put one before the stream).
    public func recognizes(head: Data) -> Bool {
        let bytes = [UInt8](head.prefix(16 * 1024))
        var at = 0
        if bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {   // "ID3": skip the tag
            at = 10 + (Int(bytes[6] & 0x7f) << 21 | Int(bytes[7] & 0x7f) << 14 | Int(bytes[8] & 0x7f) << 7 | Int(bytes[9] & 0x7f))
        }
        return bytes.count >= at + 4 && bytes[at..<at + 4].elementsEqual("fLaC".utf8)
    }
    /// libFLAC is linked at build time, so there is nothing to find at run time.
    public let status = PluginStatus.available

    public init() {}

    public func probe(_ url: URL) throws -> ProbedFile {
        _ = try AudioFileCheck.readableSize(url)
        let metadata = try Self.readMetadata(url)
        let info = try FLACAudioDecoder.streamInfo(metadata.streamInfo, name: url.path)

        // The header says nothing about whether the audio is all there; seeking to the last
        // sample does, cheaply (a few frames are read, not the whole file).
        if let frames = info.frames, frames > 0 {
            let decoder = try FLACAudioDecoder(url: url)
            try decoder.checkReaches(frame: frames - 1)
        }
        return ProbedFile(tags: metadata.tags, info: info, picture: metadata.picture)
    }

    /// One pass over the header blocks with libFLAC's level-1 iterator, which reads only the blocks asked
    /// for: STREAMINFO, the first VORBIS_COMMENT, and PICTUREs until a front cover turns up.
    static func readMetadata(_ url: URL) throws -> (streamInfo: FLAC__StreamMetadata_StreamInfo, tags: TrackTags,
                                                   picture: EmbeddedPicture?) {
        guard let iterator = FLAC__metadata_simple_iterator_new() else {
            throw DecodeError(url: url, reason: "cannot read the FLAC header: out of memory")
        }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        // Read-only; false also for a file that does not start with a FLAC (or ID3v2 + FLAC) header.
        guard RawFileName.withCPath(url.path, { FLAC__metadata_simple_iterator_init(iterator, $0, 1, 0) }) != 0 else {
            throw DecodeError(url: url, reason: "not a FLAC file")
        }
        var streamInfo: FLAC__StreamMetadata_StreamInfo?
        var mapper: TagMapper?
        var cover = CoverChoice()
        var index = 0
        repeat {
            defer { index += 1 }
            let type = FLAC__metadata_simple_iterator_get_block_type(iterator)
            let wanted = (type == FLAC__METADATA_TYPE_STREAMINFO && streamInfo == nil)
                || (type == FLAC__METADATA_TYPE_VORBIS_COMMENT && mapper == nil)
                || (type == FLAC__METADATA_TYPE_PICTURE && !cover.isSettled)
            guard wanted else { continue }
            guard let block = FLAC__metadata_simple_iterator_get_block(iterator) else {
                // A block libFLAC cannot read (lengths past its end) is skipped: the others are still good.
                // The failed read leaves the file position inside the block, and `next` moves relative to
                // it, so start again and step back to this block.
                guard RawFileName.withCPath(url.path, { FLAC__metadata_simple_iterator_init(iterator, $0, 1, 0) }) != 0,
                      (0..<index).allSatisfy({ _ in FLAC__metadata_simple_iterator_next(iterator) != 0 }) else { break }
                continue
            }
            defer { FLAC__metadata_object_delete(block) }
            switch type {
            case FLAC__METADATA_TYPE_STREAMINFO: streamInfo = block.pointee.data.stream_info
            case FLAC__METADATA_TYPE_VORBIS_COMMENT: mapper = tags(block.pointee.data.vorbis_comment)
            default:
                let picture = block.pointee.data.picture
                cover.consider(type: picture.type.rawValue) {
                    guard let data = picture.data else { return nil }
                    return EmbeddedPicture(copying: UnsafeRawBufferPointer(start: data, count: Int(picture.data_length)))
                }
            }
        } while FLAC__metadata_simple_iterator_next(iterator) != 0
        guard let streamInfo else { throw DecodeError(url: url, reason: "not a FLAC file") }
        return (streamInfo, (mapper ?? TagMapper()).tags, cover.picture)
    }

    private static func tags(_ vc: FLAC__StreamMetadata_VorbisComment) -> TagMapper {
        var mapper = TagMapper()
        guard let entries = vc.comments else { return mapper }
        for i in 0..<Int(vc.num_comments) {
            guard let entry = entries[i].entry, entries[i].length > 0 else { continue }
            // Entries are length-delimited UTF-8.
            mapper.vorbisComment(String(decoding: UnsafeBufferPointer(start: entry, count: Int(entries[i].length)),
                                        as: UTF8.self))
        }
        return mapper
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        try FLACAudioDecoder(url: url)
    }

    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        try FLACAudioDecoder(stream: stream)
    }
}

/// Collects what libFLAC's callbacks deliver and feeds it the stream; handed to them through `client_data`.
final class FLACSink {
    let input: StreamCallbacks
    init(_ input: StreamCallbacks) { self.input = input }
    var streamInfo: FLAC__StreamMetadata_StreamInfo?
    /// Decoded frames not yet handed out, interleaved.
    var pending: [Float] = []
    var pendingOffset = 0
    var framesDecoded: Int64 = 0
    /// The first problem libFLAC reported; decoding continues past a damaged frame, as players do.
    var error: String?
    var fatal: String?

    func write(_ frame: FLAC__Frame, _ planes: UnsafePointer<UnsafePointer<FLAC__int32>?>) -> FLAC__StreamDecoderWriteStatus {
        guard let info = streamInfo else {
            fatal = "audio frame before the STREAMINFO header"
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        let channels = Int(frame.header.channels), bits = Int(frame.header.bits_per_sample)
        guard channels == Int(info.channels), bits >= 4, bits <= 32 else {
            fatal = "a frame has \(channels) channels at \(bits) bits, the stream \(info.channels) at \(info.bits_per_sample)"
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        let blocksize = Int(frame.header.blocksize)
        // A power of two: the division is exact, so 16-bit input gives exactly n / 32768.
        let scale = 1 / Float(Int64(1) << (bits - 1))
        if pendingOffset == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: blocksize * channels))
        pending.withUnsafeMutableBufferPointer { out in
            for c in 0..<channels {
                guard let plane = planes[c] else { continue }
                for i in 0..<blocksize { out[start + i * channels + c] = Float(plane[i]) * scale }
            }
        }
        framesDecoded += Int64(blocksize)
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }
}

public final class FLACAudioDecoder: AudioDecoder {
    public let info: StreamInfo
    /// The stream's name (a path or a URL), for errors.
    private let name: String
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// Owned here so it (and the stream) outlives the decoder that holds an unretained pointer to it.
    private let sink: FLACSink
    private var finished = false

    convenience init(url: URL) throws {
        _ = try AudioFileCheck.readableSize(url)
        try self.init(stream: try FileByteStream(url))
    }

    /// Reads through libFLAC's stream callbacks; without seeking (live) the decoder reads straight on.
    init(stream: any ByteStream) throws {
        let name = stream.name
        guard let decoder = FLAC__stream_decoder_new() else {
            throw DecodeError(path: name, reason: "cannot start the FLAC decoder: out of memory")
        }
        // Until `self` is complete, deinit does not run: free by hand on the way out.
        var opened = false
        defer { if !opened { FLAC__stream_decoder_delete(decoder) } }

        let sink = FLACSink(StreamCallbacks(stream))
        let seekable = sink.input.canSeek
        let status = FLAC__stream_decoder_init_stream(
            decoder, FLACInput.read, seekable ? FLACInput.seek : nil, seekable ? FLACInput.tell : nil,
            seekable ? FLACInput.length : nil, FLACInput.eof, { _, frame, buffer, client in
                guard let frame, let buffer, let sink = FLACSink.from(client) else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
                return sink.write(frame.pointee, buffer)
            }, { _, metadata, client in
                guard let metadata, let sink = FLACSink.from(client), metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
                sink.streamInfo = metadata.pointee.data.stream_info
            }, { _, status, client in
                guard let sink = FLACSink.from(client) else { return }
                if sink.error == nil { sink.error = FLACAudioDecoder.describe(status) }
            }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw DecodeError(path: name, reason: "cannot start the FLAC decoder")
        }
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0, let streamInfo = sink.streamInfo else {
            throw DecodeError(path: name, reason: sink.input.reason(else: stream.localFile != nil ? "not a FLAC file" : "not a FLAC stream"))
        }
        let info = try Self.streamInfo(streamInfo, name: name)
        self.name = name
        self.sink = sink
        self.decoder = decoder
        self.info = info
        opened = true
    }

    deinit {
        FLAC__stream_decoder_finish(decoder)
        FLAC__stream_decoder_delete(decoder)
    }

    static func streamInfo(_ si: FLAC__StreamMetadata_StreamInfo, name: String) throws -> StreamInfo {
        guard si.sample_rate > 0, si.channels > 0, si.bits_per_sample >= 4, si.bits_per_sample <= 32 else {
            throw DecodeError(path: name, reason: "damaged FLAC header: \(si.channels) channels, \(si.bits_per_sample) bits at \(si.sample_rate) Hz")
        }
        // Zero total_samples means "unknown" (a stream encoded from a pipe).
        return StreamInfo(codec: "flac", sampleRate: Int(si.sample_rate), channels: Int(si.channels),
                          bitsPerSample: Int(si.bits_per_sample),
                          frames: si.total_samples > 0 ? Int64(clamping: si.total_samples) : nil)
    }

    /// Throws unless the stream can be positioned at `frame`: libFLAC fails that seek when the file is cut short.
    func checkReaches(frame: Int64) throws {
        guard FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(frame)) != 0, sink.fatal == nil else {
            let detail = (sink.fatal ?? sink.error).map { " (\($0))" } ?? ""
            throw DecodeError(path: name, reason: "truncated: the audio ends before the \(frame + 1) frames its header declares" + detail)
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = info.channels
        let capacity = buffer.count / channels
        guard capacity > 0, let base = buffer.baseAddress else { return 0 }
        while sink.pendingOffset == sink.pending.count {
            if finished { return 0 }
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            if let fatal = sink.fatal { throw DecodeError(path: name, reason: fatal) }
            let state = FLAC__stream_decoder_get_state(decoder)
            if !ok || state == FLAC__STREAM_DECODER_ABORTED || state == FLAC__STREAM_DECODER_MEMORY_ALLOCATION_ERROR {
                throw DecodeError(path: name, reason: "decode error: \(sink.error ?? sink.input.reason(else: String(cString: FLAC__stream_decoder_get_resolved_state_string(decoder))))")
            }
            if state == FLAC__STREAM_DECODER_END_OF_STREAM {
                finished = true
                if let total = info.frames, sink.framesDecoded < total {
                    throw DecodeError(path: name, reason: truncatedReason(sink.error))
                }
            }
        }
        let frames = min(capacity, (sink.pending.count - sink.pendingOffset) / channels)
        sink.pending.withUnsafeBufferPointer { pending in
            let start = sink.pendingOffset
            for i in 0..<frames * channels { base[i] = pending[start + i] }
        }
        sink.pendingOffset += frames * channels
        return frames
    }

    /// libFLAC finds the frame holding `frame` and, still inside this call, hands the write callback that
    /// frame from the target sample on; decoded samples not yet read belong to the old position and go.
    public func seek(toFrame frame: Int64) throws {
        let target = max(frame, 0)
        sink.pending.removeAll(keepingCapacity: true)
        sink.pendingOffset = 0
        // libFLAC refuses a target at or past the length; nothing is left to decode there anyway.
        if let total = info.frames, target >= total {
            sink.framesDecoded = total
            finished = true
            return
        }
        // The callback adds the partial block to this, so it counts frames up to the end of `pending` again.
        sink.framesDecoded = target
        finished = false
        let ok = FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(target)) != 0
        if let fatal = sink.fatal { throw DecodeError(path: name, reason: fatal) }
        guard ok else {
            // A failed seek leaves libFLAC unusable until flushed, and the position unknown: stop here.
            FLAC__stream_decoder_flush(decoder)
            sink.pending.removeAll(keepingCapacity: true)
            finished = true
            let detail = sink.error.map { " (\($0))" } ?? ""
            throw DecodeError(path: name, reason: "cannot seek to frame \(target)" + detail)
        }
    }

    private func truncatedReason(_ detail: String?) -> String {
        let total = info.frames.map { " of \($0)" } ?? ""
        return "truncated: the audio ends at frame \(sink.framesDecoded)\(total)" + (detail.map { " (\($0))" } ?? "")
    }

    static func describe(_ status: FLAC__StreamDecoderErrorStatus) -> String {
        switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: "lost sync"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: "damaged frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: "frame checksum mismatch"
        case FLAC__STREAM_DECODER_ERROR_STATUS_UNPARSEABLE_STREAM: "unparseable stream"
        default: "damaged stream"
        }
    }
}

extension FLACSink {
    static func from(_ client: UnsafeMutableRawPointer?) -> FLACSink? {
        client.map { Unmanaged<FLACSink>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// libFLAC's stream callbacks over a `ByteStream` (through the sink's `StreamCallbacks`).
enum FLACInput {
    static let read: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, client in
        guard let bytes, let input = FLACSink.from(client)?.input else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        let n = input.read(buffer, bytes.pointee)
        if n < 0 { bytes.pointee = 0; return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        bytes.pointee = n
        return n == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }
    static let seek: FLAC__StreamDecoderSeekCallback = { _, offset, client in
        guard let input = FLACSink.from(client)?.input, let target = Int64(exactly: offset) else { return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR }
        return input.seek(target, whence: 0) >= 0 ? FLAC__STREAM_DECODER_SEEK_STATUS_OK : FLAC__STREAM_DECODER_SEEK_STATUS_ERROR
    }
    static let tell: FLAC__StreamDecoderTellCallback = { _, offset, client in
        guard let offset, let input = FLACSink.from(client)?.input else { return FLAC__STREAM_DECODER_TELL_STATUS_ERROR }
        offset.pointee = FLAC__uint64(max(0, input.position))
        return FLAC__STREAM_DECODER_TELL_STATUS_OK
    }
    static let length: FLAC__StreamDecoderLengthCallback = { _, length, client in
        guard let length, let size = FLACSink.from(client)?.input.stream.size else { return FLAC__STREAM_DECODER_LENGTH_STATUS_UNSUPPORTED }
        length.pointee = FLAC__uint64(max(0, size))
        return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
    }
    static let eof: FLAC__StreamDecoderEofCallback = { _, client in
        guard let input = FLACSink.from(client)?.input else { return 1 }
        if input.reachedEnd { return 1 }
        if let size = input.stream.size, input.position >= size { return 1 }
        return 0
    }
}
