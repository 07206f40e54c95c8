import CrateDomain
import CrateStorage
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Pictures on disk, once per content: artwork/<2 hex>/<sha256>.<jpg|png> under the data directory,
/// with wall-size thumbnails made on first request under artwork/thumbs/<size>/.
/// Thread-safe: the scanner keeps pictures from its own thread while the importer drains them per folder.
final class ArtworkStore: Sendable {
    let folder: URL
    private let pending = Mutex<[String: ArtworkRecord]>([:])
    /// The last pictures kept, by byte count: an album's tracks embed the same cover, and comparing bytes
    /// costs a fraction of hashing them again.
    private let recent = Mutex<[Int: (data: Data, record: ArtworkRecord)]>([:])
    private static let recentLimit = 16

    init(folder: URL) {
        self.folder = folder
    }

    func url(for record: ArtworkRecord) -> URL {
        folder.appendingPathComponent(String(record.hash.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(record.hash).\(EmbeddedPicture.suffix(forMIMEType: record.mimeType))")
    }

    /// Writes the picture's file unless it exists, and returns its record (also kept as pending for the
    /// next database write). Nil when the bytes are not a JPEG/PNG or too large.
    func keep(_ picture: EmbeddedPicture, origin: String) -> ArtworkRecord? {
        guard picture.data.count <= EmbeddedPicture.maximumBytes,
              let mime = EmbeddedPicture.sniffMIMEType(picture.data) else { return nil }
        if let seen = recent.withLock({ $0[picture.data.count] }), seen.data == picture.data {
            pending.withLock { $0[seen.record.hash] = $0[seen.record.hash] ?? seen.record }
            return seen.record
        }
        var record = ArtworkRecord(hash: ContentHash.of(picture.data), mimeType: mime, bytes: picture.data.count, origin: origin)
        if let kept = pending.withLock({ $0[record.hash] }) { return kept }
        record.colors = ArtworkPalette.colors(ofImage: picture.data)
        let target = url(for: record)
        guard RawFileName.exists(target.path) || (try? Self.write(picture.data, to: target)) != nil else { return nil }
        pending.withLock { $0[record.hash] = record }
        recent.withLock {
            if $0.count >= Self.recentLimit { $0.removeAll(keepingCapacity: true) }
            $0[picture.data.count] = (picture.data, record)
        }
        return record
    }

    /// Writes a new picture file under a temporary name, then renames it into place: a reader never sees half a
    /// picture. Not synced: an artwork file lost to a power cut is written again by the next import or rescan
    /// that meets the picture (Foundation's atomic write synced each one, 385 fsyncs in a 300-album import).
    private static func write(_ data: Data, to target: URL) throws(LibraryError) {
        let folder = target.deletingLastPathComponent().path
        if !RawFileName.exists(folder) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        // Two threads may keep the same new picture at once: each writes its own temporary file.
        let temporary = "\(target.path).\(getpid()).\(UInt32.random(in: 0 ... .max)).part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: temporary, action: "create", reason: AudioFileCheck.describe(errno)) }
        var failure: LibraryError?
        do { try ManagedLibrary.writeAll(fd, data, count: data.count, path: temporary) } catch { failure = error }
        if close(fd) != 0, failure == nil { failure = .io(path: temporary, action: "write", reason: AudioFileCheck.describe(errno)) }
        if failure == nil, rename(temporary, target.path) != 0 {
            failure = .io(path: target.path, action: "move into place", reason: AudioFileCheck.describe(errno))
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Keeps a folder image (cover.jpg and the like).
    func keepFile(_ path: String) -> ArtworkRecord? {
        guard let data = try? RawFileName.contents(path, limit: EmbeddedPicture.maximumBytes),
              data.count <= EmbeddedPicture.maximumBytes, let mime = EmbeddedPicture.sniffMIMEType(data) else { return nil }
        return keep(EmbeddedPicture(data: data, mimeType: mime), origin: "folder")
    }

    /// Pictures kept since the last call, for the batch's transaction.
    func drain() -> [ArtworkRecord] {
        pending.withLock { p in
            defer { p.removeAll() }
            return Array(p.values)
        }
    }

    /// Where the thumbnail of `record` at `size` pixels is kept once made.
    func thumbnailURL(_ record: ArtworkRecord, size: Int) -> URL {
        folder.appendingPathComponent("thumbs/\(size)", isDirectory: true).appendingPathComponent("\(record.hash).jpg")
    }

    /// The thumbnail of `record` at `size` pixels, made once and cached on disk.
    func thumbnail(_ record: ArtworkRecord, size: Int) throws -> URL {
        let target = thumbnailURL(record, size: size)
        if RawFileName.exists(target.path) { return target }
        let source = url(for: record)
        let data: Data
        do { data = try Data(contentsOf: source) } catch {
            throw LibraryError.io(path: source.path, action: "read the artwork", reason: ErrorText.describe(error))
        }
        let thumb = try Thumbnailer.thumbnail(of: data, size: size)
        try Self.write(thumb, to: target)
        return target
    }

    /// Deletes the files of artwork no longer used (and their thumbnails).
    func removeFiles(of records: [ArtworkRecord]) {
        recent.withLock { $0.removeAll() }
        let thumbs = folder.appendingPathComponent("thumbs", isDirectory: true)
        let sizes = (try? FileManager.default.contentsOfDirectory(atPath: thumbs.path)) ?? []
        for record in records {
            try? FileManager.default.removeItem(at: url(for: record))
            for size in sizes { try? FileManager.default.removeItem(at: thumbs.appendingPathComponent("\(size)/\(record.hash).jpg")) }
        }
    }
}
