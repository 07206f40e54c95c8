import CrateDomain
import Foundation

/// Fuzz target: the WAV container parser (RIFF/WAVE chunk walk, `fmt `, `data`, LIST/INFO, `id3 `) and the sample
/// reader, from a seekable stream of known size (a file) and from a forward-only one of unknown size (a live
/// stream read in small pieces). Errors are expected; a crash, hang or memory error is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for seekable in [true, false] {
        let stream = FuzzMemoryStream(bytes, seekable: seekable, chunk: seekable ? .max : 7)
        guard let decoder = try? WAVAudioDecoder(stream: stream) else { continue }
        let info = decoder.info
        _ = WAVDecoderPlugin().recognizes(head: Data(bytes.prefix(12)))
        precondition(info.channels > 0 && info.sampleRate > 0, "accepted a WAV with \(info.channels) channels at \(info.sampleRate) Hz")
        var buffer = [Float](repeating: 0, count: 1024)
        // The declared data may be far longer than the input: reading stops at the first error or the end.
        for _ in 0..<64 {
            guard let n = try? buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 else { break }
            precondition(n * info.channels <= buffer.count, "read \(n) frames of \(info.channels) channels into \(buffer.count) floats")
            for sample in buffer[0..<n * info.channels] {
                precondition(sample >= -1 && sample <= 1, "sample \(sample) outside [-1, 1]")
            }
        }
        if seekable {
            try? decoder.seek(toFrame: Int64(size % 97))
            _ = try? buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        }
    }
    return 0
}
