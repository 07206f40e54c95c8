import CrateDomain
import Foundation

/// Fuzz target: the pure-Swift MP3 resync (`MP3Resync.audioStart`, `frameLength`) that finds the first MPEG frame
/// after an ID3v2 header whose size runs past the end, and the `OffsetByteStream` the decoder then reads through.
/// The libmpg123 side is a C library and not fuzzed here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let stream = FuzzMemoryStream(bytes, seekable: true)
    guard let start = try? MP3Resync.audioStart(of: stream, window: 1 << 16) else { return 0 }
    precondition(start >= 10 && start < Int64(size), "audio start \(start) outside 10..<\(size)")
    let at = Int(start)
    guard let length = MP3Resync.frameLength(bytes, at) else { preconditionFailure("no frame header at the audio start \(at)") }
    precondition(length > 0, "frame length \(length)")
    guard let offset = try? OffsetByteStream(stream, from: start) else { preconditionFailure("cannot seek to \(start)") }
    precondition(offset.size == Int64(size) - start && offset.position == 0, "offset stream at \(offset.position) of \(String(describing: offset.size))")
    var first = [UInt8](repeating: 0, count: 4)
    let n = (try? first.withUnsafeMutableBytes { try offset.readFully(into: $0) }) ?? 0
    precondition(n == 4 && first[0] == 0xFF, "the offset stream does not start at the frame")
    return 0
}
