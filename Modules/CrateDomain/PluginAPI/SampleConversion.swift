/// Float PCM to the integer sample formats devices and pipes take: clipped to ±1, rounded, little-endian (the
/// byte order of every machine Crate runs on). Shared by the outputs that need it (ALSA, pipe, fifo).
public enum SampleConversion {
    public enum Format: Sendable {
        /// `s24le32`: 24-bit values in the low three bytes of four (ALSA's S24_LE, what Snapcast reads as 24 bits).
        case s16le, s24le32, s32le, f32le

        public var bytes: Int { self == .s16le ? 2 : 4 }
    }

    /// Replaces `out` with `samples` in `format`.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, to format: Format, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(samples.count * format.bytes)
        switch format {
        case .f32le:
            out.append(contentsOf: UnsafeRawBufferPointer(samples))
        case .s24le32:
            for s in samples {
                let v = Int32((max(-1, min(1, Double(s))) * 8_388_607).rounded())
                withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
            }
        case .s32le:
            for s in samples {
                let v = Int32(clamping: Int64((Double(max(-1, min(1, s))) * 2_147_483_647).rounded()))
                withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
            }
        case .s16le:
            for s in samples {
                let v = Int16(clamping: Int((max(-1, min(1, s)) * 32767).rounded()))
                withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
            }
        }
    }
}
