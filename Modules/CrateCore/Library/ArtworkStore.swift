import CrateDomain
import CrateStorage
import Foundation
import Synchronization

/// Pictures on disk, once per content: artwork/<2 hex>/<sha256>.<jpg|png> under the data directory,
/// with wall-size thumbnails made on first request under artwork/thumbs/<size>/.
/// Thread-safe: the scanner keeps pictures from its own thread while the importer drains them per folder.
final class ArtworkStore: Sendable {
    let folder: URL
    private let pending = Mutex<[String: ArtworkRecord]>([:])

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
        var record = ArtworkRecord(hash: ContentHash.of(picture.data), mimeType: mime, bytes: picture.data.count, origin: origin)
        if let kept = pending.withLock({ $0[record.hash] }) { return kept }
        record.colors = ArtworkPalette.colors(ofImage: picture.data)
        let target = url(for: record)
        if !FileManager.default.fileExists(atPath: target.path) {
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try picture.data.write(to: target, options: .atomic)
            } catch {
                return nil
            }
        }
        pending.withLock { $0[record.hash] = record }
        return record
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

    /// The thumbnail of `record` at `size` pixels, made once and cached on disk.
    func thumbnail(_ record: ArtworkRecord, size: Int) throws -> URL {
        let target = folder.appendingPathComponent("thumbs/\(size)", isDirectory: true)
            .appendingPathComponent("\(record.hash).jpg")
        if FileManager.default.fileExists(atPath: target.path) { return target }
        let source = url(for: record)
        let data: Data
        do { data = try Data(contentsOf: source) } catch {
            throw LibraryError.io(path: source.path, action: "read the artwork", reason: ErrorText.describe(error))
        }
        let thumb = try Thumbnailer.thumbnail(of: data, size: size)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try thumb.write(to: target, options: .atomic)
        } catch {
            throw LibraryError.io(path: target.path, action: "write the thumbnail", reason: ErrorText.describe(error))
        }
        return target
    }

    /// Deletes the files of artwork no longer used (and their thumbnails).
    func removeFiles(of records: [ArtworkRecord]) {
        let thumbs = folder.appendingPathComponent("thumbs", isDirectory: true)
        let sizes = (try? FileManager.default.contentsOfDirectory(atPath: thumbs.path)) ?? []
        for record in records {
            try? FileManager.default.removeItem(at: url(for: record))
            for size in sizes { try? FileManager.default.removeItem(at: thumbs.appendingPathComponent("\(size)/\(record.hash).jpg")) }
        }
    }
}
