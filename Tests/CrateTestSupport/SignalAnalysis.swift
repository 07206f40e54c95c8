import Foundation

/// Small measurements on interleaved float PCM, for checking what an output really produced.
public enum SignalAnalysis {
    /// The samples of one channel of an interleaved buffer.
    public static func channel(_ channel: Int, of samples: [Float], channels: Int) -> [Float] {
        guard channels > 0, channel >= 0, channel < channels else { return [] }
        return stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Root mean square; 0 for an empty buffer. A sine of amplitude A gives A/√2.
    public static func rms<C: Collection>(_ samples: C) -> Double where C.Element == Float {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot()
    }

    /// The index range from the first to the last sample whose magnitude exceeds `threshold`:
    /// the sound in a recording that has silence before and after. Empty when all is quiet.
    public static func activeRange(_ samples: [Float], threshold: Float = 0.01) -> Range<Int> {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
              let last = samples.lastIndex(where: { abs($0) > threshold }) else { return 0..<0 }
        return first..<(last + 1)
    }

    /// Frequency of a mono signal from its rising zero crossings: (crossings − 1) periods between the
    /// first and the last crossing, each located to a fraction of a sample by linear interpolation.
    /// Exact enough for a clean tone (well under 1 Hz over a second); a crossing only counts after the
    /// signal went below −`hysteresis`, so noise around zero does not add crossings. nil for fewer than 2 crossings.
    public static func dominantFrequency<C: Collection>(_ samples: C, sampleRate: Int,
                                                        hysteresis: Float = 0.01) -> Double? where C.Element == Float {
        let x = Array(samples)
        var armed = false
        var first: Double?
        var last = 0.0
        var count = 0
        for i in 1..<max(x.count, 1) {
            if x[i - 1] < -hysteresis { armed = true }
            if armed, x[i - 1] < 0, x[i] >= 0 {
                let t = Double(i - 1) + Double(-x[i - 1]) / Double(x[i] - x[i - 1])
                if first == nil { first = t }
                last = t
                count += 1
                armed = false
            }
        }
        guard let first, count >= 2, last > first else { return nil }
        return Double(count - 1) * Double(sampleRate) / (last - first)
    }

    /// Where `expected` appears in `recorded` sample for sample (each within `tolerance`): the index of its first
    /// sample, or nil. A recording through a 16-bit sink differs from the float it was given by its rounding only,
    /// so a dropped, repeated or rescaled sample anywhere makes this nil.
    public static func locate(_ expected: [Float], in recorded: [Float], tolerance: Float = 1e-4) -> Int? {
        guard !expected.isEmpty, recorded.count >= expected.count,
              let anchor = expected.firstIndex(where: { abs($0) > 0.05 }) else { return nil }
        for start in 0...(recorded.count - expected.count)
        where abs(recorded[start + anchor] - expected[anchor]) <= tolerance {
            var k = 0
            while k < expected.count, abs(recorded[start + k] - expected[k]) <= tolerance { k += 1 }
            if k == expected.count { return start }
        }
        return nil
    }

    /// Interleaved float samples of a sine (same value on every channel), starting at frame `offset`
    /// so consecutive calls continue one signal.
    public static func sine(frames: Int, sampleRate: Int, channels: Int, frequency: Double,
                            amplitude: Double = 0.5, offset: Int = 0) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(i + offset) / Double(sampleRate)))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }
}
