import CrateDomain
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Crate's own library folder, where copy imports put files as Album Artist/Album/NN Title.ext.
struct ManagedLibrary: Sendable {
    let root: URL

    /// Whether `path` lies inside the managed folder (only such files are ever deleted by Crate).
    func contains(_ path: String) -> Bool {
        let base = root.standardizedFileURL.path
        return path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// A free path for a track: Album Artist/Album/[disc-]NN Title.ext, each part made safe for a file system.
    func placement(for track: ScannedTrack, suffix: String) -> URL {
        let folder = root.appendingPathComponent(Self.safe(track.album.artist), isDirectory: true)
            .appendingPathComponent(Self.safe(track.album.title), isDirectory: true)
        var stem = track.title
        if let n = track.tags.trackNumber {
            let number = n < 10 ? "0\(n)" : "\(n)"
            stem = (track.tags.discTotal ?? 1 > 1 ? "\(track.tags.discNumber ?? 1)-" : "") + number + " " + stem
        }
        let base = Self.safe(stem)
        let ext = suffix.isEmpty ? "" : "." + suffix.lowercased()
        var candidate = folder.appendingPathComponent(base + ext)
        var n = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent("\(base) (\(n))\(ext)")
            n += 1
        }
        return candidate
    }

    /// Copies `source` into `destination` through a hidden partial file renamed at the end, keeping the
    /// original's modification time. With `verify`, the copy is flushed to disk and re-read: its SHA-256 must
    /// equal the original's, else the copy is removed and the import of that file fails.
    func copy(_ source: String, to destination: URL, verify: Bool) throws(LibraryError) -> FileStamp {
        let folder = destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .io(path: folder.path, action: "create the folder", reason: ErrorText.describe(error))
        }
        let partial = folder.appendingPathComponent(Self.partialPrefix + UUID().uuidString).path
        let input = try OpenFile(source)
        let out = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw .io(path: partial, action: "create", reason: AudioFileCheck.describe(errno)) }
        var closed = false
        defer {
            if !closed { close(out) }
        }
        do {
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var offset: Int64 = 0
            while true {
                let n = try input.read(into: &buffer, at: offset)
                if n == 0 { break }
                hasher.update(data: buffer[0..<n])
                try Self.writeAll(out, buffer, count: n, path: partial)
                offset += Int64(n)
            }
            if verify, fsync(out) != 0 { throw LibraryError.io(path: partial, action: "flush", reason: AudioFileCheck.describe(errno)) }
            close(out)
            closed = true
            if let st = RawFileName.status(source) {
                var times = [st.st_atim, st.st_mtim]
                _ = utimensat(AT_FDCWD, partial, &times, 0)
            }
            if verify, try ContentHash.full(partial) != ContentHash.hex(hasher.finalize()) {
                throw LibraryError.copyMismatch(original: source, copy: destination.path)
            }
            guard rename(partial, destination.path) == 0 else {
                throw LibraryError.io(path: destination.path, action: "move the copy into place", reason: AudioFileCheck.describe(errno))
            }
            return try Self.stamp(destination.path)
        } catch let error as LibraryError {
            unlink(partial)
            throw error
        } catch {
            unlink(partial)
            throw .io(path: partial, action: "copy", reason: ErrorText.describe(error))
        }
    }

    /// The name start of a copy in progress (renamed into place when whole).
    static let partialPrefix = ".crate-partial-"

    /// Deletes an app-owned file and the folders it leaves empty, up to the library root.
    func remove(_ path: String) throws(LibraryError) {
        guard contains(path) else { return }
        if unlink(path) != 0 && errno != ENOENT {
            throw .io(path: path, action: "delete", reason: AudioFileCheck.describe(errno))
        }
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while contains(folder.path), rmdir(folder.path) == 0 { folder.deleteLastPathComponent() }
    }

    static func stamp(_ path: String) throws(LibraryError) -> FileStamp {
        guard let st = RawFileName.status(path) else { throw .io(path: path, action: "stat", reason: AudioFileCheck.describe(errno)) }
        return FileStamp(size: Int64(st.st_size), modified: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }

    /// Writes the first `count` bytes of `bytes` to `fd` (a copy's chunk buffer, or a picture's `Data` as it is).
    static func writeAll(_ fd: Int32, _ bytes: some ContiguousBytes, count: Int, path: String) throws(LibraryError) {
        var done = 0
        while done < count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + done }, count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, action: "write", reason: AudioFileCheck.describe(errno))
            }
            done += n
        }
    }

    /// A file or folder name from tag text: no slashes or control characters, no leading dot
    /// (it would hide the file), at most 120 bytes, never empty.
    static func safe(_ text: String) -> String {
        var s = String(text.unicodeScalars.map { $0 == "/" || $0.value < 0x20 || $0.value == 0x7F ? "_" : Character($0) })
        s = s.trimmingCharacters(in: .whitespaces)
        while s.hasPrefix(".") { s.removeFirst() }
        while s.utf8.count > 120 { s.removeLast() }
        s = s.trimmingCharacters(in: .whitespaces)
        return s.isEmpty ? "Unknown" : s
    }
}
