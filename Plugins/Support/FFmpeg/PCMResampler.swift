import CFFmpeg
public import CrateDomain

/// Why a `PCMResampler` cannot be made or cannot convert: FFmpeg missing, a format it refuses, a failed conversion.
public struct ResampleError: Error, Sendable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Interleaved Float32 at one rate and channel count in, at another out (libswresample); a pass-through copy when they match.
///
/// One to two channels duplicates and two to one averages, done here rather than by swresample: its default matrix
/// mixes a mono centre into each side at -3 dB and sums a stereo pair at -3 dB each (louder than either side, so a
/// loud mono-compatible track clips once made integer). Other channel counts take swresample's standard downmix.
/// Not thread-safe: one playback thread owns it, as it owns the output.
public final class PCMResampler {
    public let input: PCMFormat
    public let outputRate: Int
    public let outputChannels: Int
    private let ff: FFmpegFunctions?
    private var context: OpaquePointer?
    /// The channel count swresample sees on either side (the duplication or averaging happens outside it).
    private let swrInChannels: Int
    private let swrOutChannels: Int
    /// The samples handed to swresample after averaging stereo to mono, kept between calls.
    private var mixed: [Float] = []

    public init(from input: PCMFormat, toRate: Int, toChannels: Int) throws {
        self.input = input
        outputRate = toRate
        outputChannels = toChannels
        guard input.sampleRate > 0, input.channels > 0, toRate > 0, toChannels > 0 else {
            throw ResampleError(reason: "cannot convert \(input) to \(toRate) Hz, \(toChannels) ch: rates and channels must be positive")
        }
        // 1 <-> 2 is done here (see the type's comment): swresample then only changes the rate, at the smaller count.
        let simpleMix = Set([input.channels, toChannels]) == [1, 2]
        swrInChannels = simpleMix ? min(input.channels, toChannels) : input.channels
        swrOutChannels = simpleMix ? min(input.channels, toChannels) : toChannels
        guard input.sampleRate != toRate || swrInChannels != swrOutChannels else {
            ff = nil
            return
        }
        switch FFmpegLibrary.table {
        case .success(let functions): ff = functions
        case .failure(let error):
            throw ResampleError(reason: "cannot convert \(input) to \(toRate) Hz, \(toChannels) ch: \(error.reason)")
        }
        try start()
    }

    deinit {
        if let ff { ff.swr_free(&context) }
    }

    private func start() throws {
        guard let ff else { return }
        var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
        ff.av_channel_layout_default(&inLayout, Int32(swrInChannels))
        ff.av_channel_layout_default(&outLayout, Int32(swrOutChannels))
        defer {
            ff.av_channel_layout_uninit(&inLayout)
            ff.av_channel_layout_uninit(&outLayout)
        }
        let made = ff.swr_alloc_set_opts2(&context, &outLayout, AV_SAMPLE_FMT_FLT, Int32(outputRate),
                                          &inLayout, AV_SAMPLE_FMT_FLT, Int32(input.sampleRate), 0, nil)
        guard made >= 0, context != nil else { throw failure("libswresample refused the formats", made) }
        let initialised = ff.swr_init(context)
        guard initialised >= 0 else {
            ff.swr_free(&context)
            throw failure("libswresample could not start", initialised)
        }
    }

    private func failure(_ what: String, _ code: Int32) -> ResampleError {
        ResampleError(reason: "cannot convert \(input) to \(outputRate) Hz, \(outputChannels) ch: \(what) (\(FFmpegLibrary.describe(code)))")
    }

    /// Converts whole input frames; answers the output samples ready so far (interleaved), possibly empty.
    public func convert(_ samples: UnsafeBufferPointer<Float>) throws -> [Float] {
        guard samples.count % input.channels == 0 else {
            throw ResampleError(reason: "\(samples.count) samples are not whole \(input.channels)-channel frames")
        }
        let frames = samples.count / input.channels
        if input.channels == 2, outputChannels == 1 {
            // Stereo to mono: the average of the pair, before any resampling (half the work).
            mixed.removeAll(keepingCapacity: true)
            mixed.reserveCapacity(frames)
            for i in 0..<frames { mixed.append((samples[2 * i] + samples[2 * i + 1]) * 0.5) }
            guard context != nil else { return mixed }
            return try mixed.withUnsafeBufferPointer { try run($0.baseAddress, frames: frames) }
        }
        guard context != nil else { return widen(Array(samples)) }
        return try widen(run(samples.baseAddress, frames: frames))
    }

    /// The samples still held (the resampler's delay), at the end of a stream. The resampler then starts afresh:
    /// the next `convert` begins a new stream (after a seek, say), with nothing of the old one in it.
    public func flush() throws -> [Float] {
        guard let ff, context != nil else { return [] }
        let tail = try run(nil, frames: 0)
        // After a flush swresample takes no more input; initialising again clears it for the next stream.
        let initialised = ff.swr_init(context)
        guard initialised >= 0 else { throw failure("libswresample could not restart", initialised) }
        return widen(tail)
    }

    /// swresample over `frames` frames of `swrInChannels` (nil: drain what it holds).
    private func run(_ source: UnsafePointer<Float>?, frames: Int) throws -> [Float] {
        guard let ff, let context else { return [] }
        // Room for every frame this input can make plus the filter's delay (tens of frames at the default filter).
        let room = (frames + 256) * outputRate / input.sampleRate + 256
        var out = [Float](repeating: 0, count: room * swrOutChannels)
        let converted = out.withUnsafeMutableBufferPointer { target -> Int32 in
            var targetBytes = UnsafeMutableRawPointer(target.baseAddress)?.assumingMemoryBound(to: UInt8.self)
            guard let source else { return ff.swr_convert(context, &targetBytes, Int32(room), nil, 0) }
            var sourceBytes: UnsafePointer<UInt8>? = UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self)
            return ff.swr_convert(context, &targetBytes, Int32(room), &sourceBytes, Int32(frames))
        }
        guard converted >= 0 else { throw failure("the conversion failed", converted) }
        out.removeSubrange((Int(converted) * swrOutChannels)...)
        return out
    }

    /// Mono to stereo by duplicating each sample, when that is the conversion; otherwise `samples` as they are.
    private func widen(_ samples: [Float]) -> [Float] {
        guard swrOutChannels == 1, outputChannels == 2 else { return samples }
        var wide = [Float](repeating: 0, count: samples.count * 2)
        for (i, s) in samples.enumerated() {
            wide[2 * i] = s
            wide[2 * i + 1] = s
        }
        return wide
    }
}
