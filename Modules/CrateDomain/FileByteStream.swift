public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local file as a byte stream: seekable, its size known.
public final class FileByteStream: ByteStream {
    public let url: URL
    public let size: Int64?
    public private(set) var position: Int64 = 0
    private let fd: Int32

    public init(_ url: URL) throws(ByteStreamError) {
        self.url = url
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(name: url.path, reason: AudioFileCheck.describe(errno)) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = AudioFileCheck.describe(errno)
            close(fd)
            throw .cannotOpen(name: url.path, reason: reason)
        }
        // A FIFO or device would block or never end; only regular files are audio files here.
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .cannotOpen(name: url.path, reason: (st.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "not a regular file")
        }
        self.fd = fd
        size = Int64(st.st_size)
    }

    deinit { close(fd) }

    public var name: String { url.path }
    public var localFile: URL? { url }
    public var contentType: String? { nil }
    public var suffixHint: String? { url.pathExtension.isEmpty ? nil : url.pathExtension.lowercased() }
    public var isSeekable: Bool { true }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 {
                position += Int64(n)
                return n
            }
            if errno != EINTR { throw ByteStreamError.readFailed(name: name, reason: AudioFileCheck.describe(errno)) }
        }
    }

    public func seek(to offset: Int64) throws {
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
            throw ByteStreamError.readFailed(name: name, reason: "cannot seek to byte \(offset): \(AudioFileCheck.describe(errno))")
        }
        position = offset
    }
}

/// Local files, the `file:` input every build has.
public struct FileInputProvider: InputProvider {
    public let name = "file"
    public let schemes = ["file"]
    public init() {}
    public func open(_ url: URL) throws -> any ByteStream { try FileByteStream(url) }
}

/// Input providers by URL scheme (files always; `http`/`https` when URLStream is there).
public struct InputRegistry: Sendable {
    private let byScheme: [String: any InputProvider]

    public init(_ providers: [any InputProvider] = []) {
        var byScheme: [String: any InputProvider] = ["file": FileInputProvider()]
        for p in providers { for s in p.schemes { byScheme[s.lowercased()] = p } }
        self.byScheme = byScheme
    }

    public func open(_ url: URL) throws -> any ByteStream {
        let scheme = url.isFileURL ? "file" : (url.scheme ?? "").lowercased()
        guard let provider = byScheme[scheme] else {
            throw ByteStreamError.cannotOpen(name: url.absoluteString, reason: "no input provider reads '\(scheme):' URLs")
        }
        return try provider.open(url)
    }
}
