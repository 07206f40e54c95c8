import CrateDomain
public import Foundation

/// The single-writer rule: one process writes the library at a time. `crated` holds this lock for its lifetime;
/// a `crate` command that writes takes it for its run, and while the daemon runs it sends its change through the
/// daemon instead (so every client hears the event). The lock is an `flock` on `library.lock` in the data folder,
/// released by the kernel when the holder exits or crashes; the file holds the holder's pid for messages.
public final class LibraryLock: Sendable {
    public let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    public static func path(dataDirectory: URL) -> String { dataDirectory.appendingPathComponent("library.lock").path }

    /// Takes the lock, or fails at once with the holder's pid.
    public static func acquire(dataDirectory: URL) throws -> LibraryLock {
        try? FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let path = path(dataDirectory: dataDirectory)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        while !locked && errno == EINTR { locked = flock(fd, LOCK_EX | LOCK_NB) == 0 }
        guard locked else {
            close(fd)
            throw StoreError.heldByDaemon(path: path, pid: holder(dataDirectory: dataDirectory))
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return LibraryLock(path: path, fd: fd)
    }

    /// The pid of the process holding the lock, or nil when nobody does.
    public static func holder(dataDirectory: URL) -> Int32? {
        let path = path(dataDirectory: dataDirectory)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {   // nobody holds it
            flock(fd, LOCK_UN)
            return nil
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
