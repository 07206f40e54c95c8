import CrateDomain
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The codec libraries stop quietly at the last complete Ogg page, so a file cut short by an
/// interrupted copy would play as a shorter track. Looking at the last page finds that case.
public enum OggTail {
    /// Largest possible page: 27-byte header, 255 lacing values, 255 segments of 255 bytes.
    public static let maxPageSize = 27 + 255 + 255 * 255

    /// Throws when the last Ogg page in the file extends past its end.
    public static func checkComplete(_ url: URL, size: Int64) throws {
        let start = max(0, size - Int64(maxPageSize))
        let bytes: [UInt8]
        do {
            let fd = RawFileName.open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw DecodeError(url: url, reason: AudioFileCheck.describe(errno)) }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try handle.seek(toOffset: UInt64(start))
            bytes = [UInt8](try handle.read(upToCount: Int(size - start)) ?? Data())
        } catch {
            throw DecodeError(url: url, reason: "read error: \(error.localizedDescription)")
        }
        // The last capture pattern starts the last page; bytes after a complete page
        // (an appended tag, say) are harmless and ignored.
        var page = bytes.count - 4
        while page >= 0, !(bytes[page] == 0x4F && bytes[page + 1] == 0x67 && bytes[page + 2] == 0x67 && bytes[page + 3] == 0x53) {
            page -= 1
        }
        guard page >= 0 else { return }
        let cut = DecodeError(url: url, reason: "truncated: the file ends inside an Ogg page (incomplete copy or download?)")
        guard page + 27 <= bytes.count else { throw cut }
        let segments = Int(bytes[page + 26])
        guard page + 27 + segments <= bytes.count else { throw cut }
        let body = bytes[(page + 27)..<(page + 27 + segments)].reduce(0) { $0 + Int($1) }
        guard page + 27 + segments + body <= bytes.count else { throw cut }
    }
}
