import CrateDomain
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 based hashes of files. The partial hash identifies duplicates without reading whole files;
/// the full hash verifies a copy before its original may be deleted.
enum ContentHash {
    /// Bytes read from each end of the file for the partial hash.
    static let edge = 16 * 1024

    /// SHA-256 of the size, the first 16 KiB and the last 16 KiB (the whole file when it is smaller).
    static func partial(_ path: String, size: Int64) throws(LibraryError) -> String {
        let file = try OpenFile(path)
        var hasher = SHA256()
        withUnsafeBytes(of: size.littleEndian) { hasher.update(bufferPointer: $0) }
        var buffer = [UInt8](repeating: 0, count: edge)
        let head = try file.read(into: &buffer, at: 0)
        hasher.update(data: buffer[0..<head])
        if size > Int64(edge) {
            let tail = try file.read(into: &buffer, at: max(Int64(edge), size - Int64(edge)))
            hasher.update(data: buffer[0..<tail])
        }
        return hex(hasher.finalize())
    }

    /// SHA-256 of the whole file, read in 1 MiB blocks.
    static func full(_ path: String) throws(LibraryError) -> String {
        let file = try OpenFile(path)
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let n = try file.read(into: &buffer, at: offset)
            if n == 0 { break }
            hasher.update(data: buffer[0..<n])
            offset += Int64(n)
        }
        return hex(hasher.finalize())
    }

    static func of(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    /// Lower-case hex without String(format:), whose varargs boxing showed up in import profiles.
    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A read-only file descriptor closed on deinit; reads are positioned (pread), so no seek state.
final class OpenFile {
    let path: String
    let fd: Int32

    init(_ path: String) throws(LibraryError) {
        self.path = path
        fd = RawFileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, action: "open", reason: AudioFileCheck.describe(errno)) }
    }

    deinit { close(fd) }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    func read(into buffer: inout [UInt8], at offset: Int64) throws(LibraryError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, action: "read", reason: AudioFileCheck.describe(errno))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
