import CFFmpeg
import CrateDomain
import FFmpegSupport
import Foundation

/// One encode: interleaved float PCM in → resampled and downmixed to what the codec takes (48 kHz for Opus, stereo at
/// most) → whole codec frames → the container, written into memory as it goes (a write-only AVIO context) and
/// handed out by `encode` and `finish`.
final class FFmpegAudioEncoder: AudioEncoder {
    let format: EncodedFormat
    private let ff: FFmpegFunctions
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var output: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let sink = Sink()
    /// Resampled interleaved samples waiting to fill a whole codec frame.
    private var waiting: [Float] = []
    private var nextPTS: Int64 = 0
    private let inputRate: Int32, inputChannels: Int32, rate: Int32, channels: Int32
    private var frameSize = 0
    private var planar = false
    private var finished = false

    /// Where the muxer's bytes land.
    final class Sink {
        var data = Data()
    }

    /// The AVIO write callback: appends what the muxer wrote to the sink.
    static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
        guard let opaque, let buffer, size > 0 else { return size }
        Unmanaged<Sink>.fromOpaque(opaque).takeUnretainedValue().data.append(buffer, count: Int(size))
        return size
    }

    init(_ ff: FFmpegFunctions, format: EncodedFormat, encoder name: String, muxer: String, bitRate: Int, inputRate: Int,
         inputChannels: Int) throws {
        self.ff = ff
        self.format = format
        guard inputRate > 0, inputChannels > 0 else { throw EncodeError(format: format.name, reason: "\(inputChannels) channels at \(inputRate) Hz") }
        self.inputRate = Int32(inputRate)
        self.inputChannels = Int32(inputChannels)
        channels = Int32(min(inputChannels, 2))
        // Opus runs at 48 kHz; LAME at the common rates (others are resampled to 44.1 kHz).
        rate = format.name == "opus" ? 48000 : ([32000, 44100, 48000].contains(inputRate) ? Int32(inputRate) : 44100)
        do {
            try open(encoder: name, muxer: muxer, bitRate: bitRate)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func fail(_ what: String, _ code: Int32) -> EncodeError {
        EncodeError(format: format.name, reason: "\(what): \(FFmpegLibrary.describe(code))")
    }

    private func open(encoder name: String, muxer: String, bitRate: Int) throws {
        guard let encoder = ff.avcodec_find_encoder_by_name(name) else {
            throw EncodeError(format: format.name, reason: "this FFmpeg has no \(name) encoder")
        }
        guard let context = ff.avcodec_alloc_context3(encoder) else { throw EncodeError(format: format.name, reason: "out of memory") }
        codec = context
        planar = format.name == "mp3"
        context.pointee.sample_fmt = planar ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT
        context.pointee.sample_rate = rate
        ff.av_channel_layout_default(&context.pointee.ch_layout, channels)
        context.pointee.bit_rate = Int64(bitRate) * 1000
        context.pointee.time_base = AVRational(num: 1, den: rate)

        var made: UnsafeMutablePointer<AVFormatContext>?
        let allocated = ff.avformat_alloc_output_context2(&made, nil, muxer, nil)
        guard allocated >= 0, let made else { throw fail("no \(muxer) muxer", allocated) }
        output = made
        if made.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        let opened = ff.avcodec_open2(context, encoder, nil)
        guard opened >= 0 else { throw fail("the \(name) encoder refused \(channels) channels at \(rate) Hz, \(bitRate) kbit/s", opened) }
        // A codec without a fixed frame size takes any; feed it 20 ms at a time.
        frameSize = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : Int(rate) / 50

        guard let stream = ff.avformat_new_stream(made, nil) else { throw EncodeError(format: format.name, reason: "out of memory") }
        self.stream = stream
        let copied = ff.avcodec_parameters_from_context(stream.pointee.codecpar, context)
        guard copied >= 0 else { throw fail("the stream's parameters", copied) }
        stream.pointee.time_base = context.pointee.time_base

        let size: Int32 = 32768
        guard let buffer = ff.av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self),
              let io = ff.avio_alloc_context(buffer, size, 1, Unmanaged.passUnretained(sink).toOpaque(), nil, Self.write, nil) else {
            throw EncodeError(format: format.name, reason: "out of memory")
        }
        self.io = io
        made.pointee.pb = io
        // Sent as it is made, never seeked back into: no Xing or ID3 header to fill in afterwards.
        var options: OpaquePointer?
        if muxer == "mp3" {
            _ = ff.av_dict_set(&options, "write_xing", "0", 0)
            _ = ff.av_dict_set(&options, "id3v2_version", "0", 0)
        }
        let header = ff.avformat_write_header(made, &options)
        ff.av_dict_free(&options)
        guard header >= 0 else { throw fail("the \(muxer) header", header) }

        var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
        ff.av_channel_layout_default(&inLayout, inputChannels)
        ff.av_channel_layout_default(&outLayout, channels)
        let resampling = ff.swr_alloc_set_opts2(&resampler, &outLayout, AV_SAMPLE_FMT_FLT, rate, &inLayout, AV_SAMPLE_FMT_FLT, inputRate, 0, nil)
        guard resampling >= 0, resampler != nil, ff.swr_init(resampler) >= 0 else {
            throw EncodeError(format: format.name, reason: "cannot convert \(inputChannels) channels at \(inputRate) Hz")
        }
        packet = ff.av_packet_alloc()
        frame = ff.av_frame_alloc()
        guard packet != nil, frame != nil else { throw EncodeError(format: format.name, reason: "out of memory") }
    }

    func encode(_ samples: UnsafeBufferPointer<Float>) throws -> Data {
        guard !finished else { throw EncodeError(format: format.name, reason: "the encoder was finished") }
        let frames = samples.count / Int(inputChannels)
        if frames > 0 { try resample(samples.baseAddress, frames: frames) }
        while waiting.count >= frameSize * Int(channels) { try encodeFrame(count: frameSize) }
        return takeBytes()
    }

    func finish() throws -> Data {
        guard !finished else { return Data() }
        finished = true
        try resample(nil, frames: 0)  // what the resampler still holds
        while waiting.count >= frameSize * Int(channels) { try encodeFrame(count: frameSize) }
        if !waiting.isEmpty {
            // The last frame, padded with silence to a whole one (the codec marks the padding for the decoder).
            let short = waiting.count / Int(channels)
            waiting += [Float](repeating: 0, count: (frameSize - short) * Int(channels))
            try encodeFrame(count: frameSize)
        }
        try send(nil)
        let trailer = ff.av_write_trailer(output)
        guard trailer >= 0 else { throw fail("the trailer", trailer) }
        return takeBytes()
    }

    private func takeBytes() -> Data {
        let bytes = sink.data
        sink.data = Data()
        return bytes
    }

    /// Converts `frames` input frames (nil: drains the resampler) and adds them to `waiting`.
    private func resample(_ input: UnsafePointer<Float>?, frames: Int) throws {
        let room = (frames + 64) * Int(rate) / Int(inputRate) + 256
        var out = [Float](repeating: 0, count: room * Int(channels))
        let converted = out.withUnsafeMutableBufferPointer { target -> Int32 in
            var targetBytes = UnsafeMutableRawPointer(target.baseAddress)?.assumingMemoryBound(to: UInt8.self)
            guard let input else { return ff.swr_convert(resampler, &targetBytes, Int32(room), nil, 0) }
            var source: UnsafePointer<UInt8>? = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
            return ff.swr_convert(resampler, &targetBytes, Int32(room), &source, Int32(frames))
        }
        guard converted >= 0 else { throw fail("sample conversion", converted) }
        waiting += out[0..<Int(converted) * Int(channels)]
    }

    /// Encodes the first `count` waiting frames as one codec frame.
    private func encodeFrame(count: Int) throws {
        guard let frame, let codec else { return }
        ff.av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.format = codec.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = rate
        let copied = ff.av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout)
        guard copied >= 0 else { throw fail("the channel layout", copied) }
        let allocated = ff.av_frame_get_buffer(frame, 0)
        guard allocated >= 0 else { throw fail("a frame's buffer", allocated) }
        let width = Int(channels)
        waiting.withUnsafeBufferPointer { samples in
            if planar {
                for channel in 0..<width {
                    guard let plane = frame.pointee.extended_data[channel] else { continue }
                    let out = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
                    for i in 0..<count { out[i] = samples[i * width + channel] }
                }
            } else if let plane = frame.pointee.extended_data[0], let first = samples.baseAddress {
                UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self).update(from: first, count: count * width)
            }
        }
        waiting.removeFirst(count * width)
        frame.pointee.pts = nextPTS
        nextPTS += Int64(count)
        try send(frame)
    }

    /// Sends a frame (nil: the end) and writes every packet the encoder has ready.
    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let sent = ff.avcodec_send_frame(codec, frame)
        guard sent >= 0 else { throw fail("encoding", sent) }
        while true {
            let received = ff.avcodec_receive_packet(codec, packet)
            if received == crate_averror_eagain() || received == crate_averror_eof() { return }
            guard received >= 0, let packet, let codec, let stream else { throw fail("encoding", received) }
            ff.av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            let written = ff.av_interleaved_write_frame(output, packet)
            guard written >= 0 else { throw fail("writing", written) }
        }
    }

    private func release() {
        ff.av_packet_free(&packet)
        ff.av_frame_free(&frame)
        ff.swr_free(&resampler)
        ff.avcodec_free_context(&codec)
        if let output {
            output.pointee.pb = nil
            ff.avformat_free_context(output)
            self.output = nil
        }
        if let context = io {
            ff.av_freep(&context.pointee.buffer)
            ff.avio_context_free(&io)
        }
    }
}
