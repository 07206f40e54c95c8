import CEbur128
public import CrateDomain
import Foundation

/// An EBU R128 meter over libebur128: integrated loudness (ITU-R BS.1770-4 gating), true peak (4× oversampled below
/// 96 kHz) and sample peak of interleaved float PCM.
///
/// Channels take libebur128's default map, which is also WAV's and FLAC's order: left, right, centre, LFE (not
/// counted), left surround, right surround. A mono file counts once, as ffmpeg's `ebur128` filter counts it.
///
/// Not shared between threads: one thread feeds a meter at a time (a scan hands it from the worker that measured the
/// track to the one that completes the album, through a lock).
public final class LoudnessMeter: @unchecked Sendable {
    let state: UnsafeMutablePointer<ebur128_state>
    public let channels: Int
    public let sampleRate: Int
    public private(set) var frames: Int64 = 0

    public init(channels: Int, sampleRate: Int) throws {
        guard channels > 0, channels <= 64, sampleRate > 0 else {
            throw LoudnessError("cannot measure \(channels) channels at \(sampleRate) Hz")
        }
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue)
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw LoudnessError("libebur128 could not start a meter for \(channels) channels at \(sampleRate) Hz")
        }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
    }

    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
    }

    /// Adds `samples` (interleaved, whole frames).
    public func add(_ samples: UnsafeBufferPointer<Float>) throws {
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        let result = ebur128_add_frames_float(state, base, count)
        guard result == Int32(EBUR128_SUCCESS.rawValue) else { throw LoudnessError("libebur128 failed (error \(result))") }
        frames += Int64(count)
    }

    /// Integrated loudness so far, LUFS; nil when everything is below the absolute gate (silence, or nothing yet).
    public var integrated: Double? {
        var out = 0.0
        guard ebur128_loudness_global(state, &out) == Int32(EBUR128_SUCCESS.rawValue), out.isFinite else { return nil }
        return out
    }

    /// The highest true peak of any channel, linear.
    public var truePeak: Double { peak(ebur128_true_peak) }

    /// The highest sample of any channel, linear.
    public var samplePeak: Double { peak(ebur128_sample_peak) }

    private func peak(_ read: (UnsafeMutablePointer<ebur128_state>?, UInt32, UnsafeMutablePointer<Double>?) -> Int32) -> Double {
        var highest = 0.0
        for c in 0..<channels {
            var value = 0.0
            if read(state, UInt32(c), &value) == Int32(EBUR128_SUCCESS.rawValue), value.isFinite { highest = max(highest, value) }
        }
        return highest
    }

    public var measurement: LoudnessMeasurement {
        LoudnessMeasurement(integrated: integrated, truePeak: truePeak, samplePeak: samplePeak,
                            seconds: Double(frames) / Double(sampleRate))
    }

    /// The loudness of `meters` taken together, as if their audio were one stream: the gating runs over every
    /// meter's 400 ms blocks at once (`ebur128_loudness_global_multiple`). That is how an album is measured from
    /// its tracks. Peaks are the highest of any; the length is the sum.
    public static func combined(_ meters: [LoudnessMeter]) throws -> LoudnessMeasurement {
        guard !meters.isEmpty else { throw LoudnessError("no tracks to combine") }
        var states: [UnsafeMutablePointer<ebur128_state>?] = meters.map(\.state)
        var out = 0.0
        let result = states.withUnsafeMutableBufferPointer { buffer in
            ebur128_loudness_global_multiple(buffer.baseAddress, buffer.count, &out)
        }
        guard result == Int32(EBUR128_SUCCESS.rawValue) else { throw LoudnessError("libebur128 failed (error \(result))") }
        return LoudnessMeasurement(integrated: out.isFinite ? out : nil, truePeak: meters.map(\.truePeak).max() ?? 0,
                                   samplePeak: meters.map(\.samplePeak).max() ?? 0,
                                   seconds: meters.reduce(0) { $0 + Double($1.frames) / Double($1.sampleRate) })
    }

    /// Decodes `decoder` to its end into a new meter. `chunkFrames` frames are decoded at a time.
    public static func measure(_ decoder: any AudioDecoder, chunkFrames: Int = 16384) throws -> LoudnessMeter {
        let info = decoder.info
        let meter = try LoudnessMeter(channels: info.channels, sampleRate: info.sampleRate)
        var buffer = [Float](repeating: 0, count: chunkFrames * info.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if n == 0 { return meter }
            try buffer.withUnsafeBufferPointer { try meter.add(UnsafeBufferPointer(rebasing: $0[0..<n * info.channels])) }
        }
    }
}

public struct LoudnessError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
