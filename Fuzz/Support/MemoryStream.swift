import CrateDomain
import Foundation

/// Fuzz support: the input as a `ByteStream`, seekable with a known size (a file) or forward-only with no size
/// (a live HTTP stream), so parsers see it the way they see real inputs. Reads come in `chunk`-sized pieces at
/// most, as from a socket.
final class FuzzMemoryStream: ByteStream {
    private let bytes: [UInt8]
    let isSeekable: Bool
    private let chunk: Int
    private(set) var position: Int64 = 0

    init(_ bytes: [UInt8], seekable: Bool, chunk: Int = .max) {
        self.bytes = bytes
        self.isSeekable = seekable
        self.chunk = max(1, chunk)
    }

    var name: String { "fuzz-input" }
    var contentType: String? { nil }
    var suffixHint: String? { nil }
    var size: Int64? { isSeekable ? Int64(bytes.count) : nil }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard position < Int64(bytes.count), !buffer.isEmpty else { return 0 }
        let start = Int(position)
        let n = min(buffer.count, bytes.count - start, chunk)
        bytes.withUnsafeBytes { raw in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<start + n]))
        }
        position += Int64(n)
        return n
    }

    /// Past the end is allowed (as `lseek` allows it); reads there return 0.
    func seek(to offset: Int64) throws {
        guard isSeekable else { throw ByteStreamError.notSeekable(name: name) }
        guard offset >= 0 else { throw ByteStreamError.readFailed(name: name, reason: "negative seek \(offset)") }
        position = offset
    }
}
