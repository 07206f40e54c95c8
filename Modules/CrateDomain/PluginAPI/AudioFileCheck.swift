public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Checks a decoder runs before handing a path to its codec library, whose error codes cannot say
/// "no such file" or "file is empty" in words a user can act on.
public enum AudioFileCheck {
    /// The size of the regular, readable, non-empty file at `url`.
    public static func readableSize(_ url: URL) throws -> Int64 {
        guard url.isFileURL else { throw DecodeError(url: url, reason: "not a local file") }
        guard let st = RawFileName.status(url.path) else { throw DecodeError(url: url, reason: describe(errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw DecodeError(url: url, reason: "is a directory") }
        // A FIFO or device would block or never end; only regular files are audio files here.
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw DecodeError(url: url, reason: "not a regular file") }
        // stat() succeeds on unreadable files; open() is what tells "permission denied".
        let fd = RawFileName.open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DecodeError(url: url, reason: describe(errno)) }
        close(fd)
        guard st.st_size > 0 else { throw DecodeError(url: url, reason: "file is empty") }
        return Int64(st.st_size)
    }

    public static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
