public import CrateDomain
import CrateStorage
public import Foundation
import Logging

/// Disk use of what Crate keeps.
public struct StorageSizes: Sendable, Hashable, Codable {
    /// The database with its WAL and shared-memory files.
    public var databaseBytes: Int64
    public var libraryBytes: Int64
    public var libraryFiles: Int
    public var importFolderBytes: Int64
    public var artworkBytes: Int64
}

/// Files in the managed library folder that no track refers to.
public struct OrphanCleanup: Sendable, Hashable, Codable {
    public var count = 0
    public var bytes: Int64 = 0
    /// Up to 500 of them.
    public var paths: [String] = []
    public var deleted = false
}

public struct RepairReport: Sendable, Hashable, Codable {
    /// Rows removed or reset, by kind.
    public var removed: [String: Int]
    public var artworkFilesDeleted: Int
    /// Artwork whose file had gone; its tracks will be looked at again by the artwork repair.
    public var artworkFilesMissing: Int
}

/// The launch-time artwork repair: looks for pictures of tracks that have none recorded, a capped number per run.
public struct ArtworkRepairStatus: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Codable { case idle, running, done, failed }
    public var state: State = .idle
    public var checked = 0
    public var filled = 0
    /// Tracks still waiting to be looked at after this run (the next launch continues).
    public var remaining = 0
    public var limit = 0
    public var message: String?

    public init() {}
}

extension LibraryService {
    public func diagnostics() throws -> LibraryDiagnostics { try store.diagnostics() }

    public func storageSizes() -> StorageSizes {
        let db = [store.path, store.path + "-wal", store.path + "-shm"].reduce(Int64(0)) { $0 + Self.size(of: $1) }
        let library = Self.folderSize(settings.libraryFolder)
        return StorageSizes(databaseBytes: db, libraryBytes: library.bytes, libraryFiles: library.files,
                            importFolderBytes: Self.folderSize(settings.importFolder).bytes,
                            artworkBytes: Self.folderSize(settings.artworkFolder).bytes)
    }

    /// Finds (and unless `dryRun`, deletes) files in the managed library that no track refers to, including
    /// partial copies left by an interrupted import; empty folders go too.
    public func cleanOrphans(dryRun: Bool) throws -> OrphanCleanup {
        var result = OrphanCleanup()
        let known = try store.libraryFilePaths()
        let root = settings.libraryFolder.standardizedFileURL
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else {
            return result
        }
        var orphans: [String] = []
        for case let url as URL in walk {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values?.isRegularFile == true, !known.contains(url.standardizedFileURL.path) else { continue }
            result.count += 1
            result.bytes += Int64(values?.fileSize ?? 0)
            if result.paths.count < 500 { result.paths.append(url.path) }
            orphans.append(url.standardizedFileURL.path)
        }
        if !dryRun {
            for path in orphans { try managed.remove(path) }
            result.deleted = true
            logger.info("cleanup: deleted \(result.count) orphaned library files (\(result.bytes) bytes)")
        }
        return result
    }

    /// Removes database rows that point at nothing, deletes unused artwork files, and forgets artwork whose
    /// file has gone (so the artwork repair fills it in again).
    public func repair() throws -> RepairReport {
        var gone: [String] = []
        for record in try store.allArtwork() where !FileManager.default.fileExists(atPath: artwork.url(for: record).path) {
            gone.append(record.hash)
        }
        try store.forgetArtwork(hashes: gone)
        let (removed, unused) = try store.repair()
        artwork.removeFiles(of: unused)
        logger.info("repair: \(removed.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")); \(unused.count) unused artwork files")
        return RepairReport(removed: removed, artworkFilesDeleted: unused.count, artworkFilesMissing: gone.count)
    }

    /// Looks for the artwork of up to `limit` tracks that have none recorded (embedded picture first, then a
    /// folder image), pausing between files so playback and requests keep the machine. Missing-only: tracks
    /// already looked at are not looked at again.
    public func repairArtwork(limit: Int, pause: TimeInterval = 0.02,
                              update: (ArtworkRepairStatus) -> Void = { _ in }) -> ArtworkRepairStatus {
        var status = ArtworkRepairStatus()
        status.limit = limit
        status.state = .running
        do {
            let tracks = try store.tracksNeedingArtwork(limit: limit)
            status.remaining = try store.countTracksNeedingArtwork()
            update(status)
            for (id, path) in tracks {
                var record: ArtworkRecord?
                if let picture = try? decoders.probe(URL(fileURLWithPath: path)).picture {
                    record = artwork.keep(picture, origin: "embedded")
                }
                if record == nil, let image = FolderImage.find(in: folderOf(path)) {
                    record = artwork.keepFile(image)
                }
                _ = artwork.drain()
                try store.setTrackArtwork(trackID: id, record)
                status.checked += 1
                status.remaining -= 1
                if record != nil { status.filled += 1 }
                update(status)
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
            // Pictures stored before their colours were computed (v7) get them now, within the same limit.
            for record in try store.artworkWithoutColors(limit: limit) {
                let data = try? Data(contentsOf: artwork.url(for: record), options: .mappedIfSafe)
                try store.setArtworkColors(hash: record.hash, data.flatMap(ArtworkPalette.colors(ofImage:)) ?? [])
            }
            status.state = .done
        } catch {
            status.state = .failed
            status.message = ErrorText.describe(error)
        }
        logger.info("artwork repair: looked at \(status.checked), filled \(status.filled), \(status.remaining) left")
        update(status)
        return status
    }

    /// The artwork file, or its thumbnail at `size` pixels (made once and cached).
    public func artworkFile(hash: String, size: Int? = nil) throws -> (url: URL, mimeType: String) {
        let record = try artworkRecord(hash)
        guard let size else { return (artwork.url(for: record), record.mimeType) }
        return (try artwork.thumbnail(record, size: size), "image/jpeg")
    }

    /// Makes the thumbnails at `size` of `hashes` that are not made yet, one after another, and says how many it
    /// made. The daemon makes the wall's first screen so after start-up: the page's first visit then finds them
    /// rather than asking for forty pictures decoded at once. One that cannot be made is left to its request,
    /// which reports why.
    @discardableResult
    public func makeThumbnails(_ hashes: [String], size: Int) -> Int {
        var made = 0
        for hash in hashes {
            guard let record = try? artworkRecord(hash), !RawFileName.exists(artwork.thumbnailURL(record, size: size).path),
                  (try? artwork.thumbnail(record, size: size)) != nil else { continue }
            made += 1
        }
        return made
    }

    /// What `artworkFile` answers when no picture has to be decoded for it (the original, or a thumbnail made
    /// already); nil when the thumbnail is still to be made. A server's event loop asks this first and makes
    /// thumbnails elsewhere.
    public func madeArtworkFile(hash: String, size: Int?) throws -> (url: URL, mimeType: String)? {
        let record = try artworkRecord(hash)
        guard let size else { return (artwork.url(for: record), record.mimeType) }
        let thumbnail = artwork.thumbnailURL(record, size: size)
        return RawFileName.exists(thumbnail.path) ? (thumbnail, "image/jpeg") : nil
    }

    private func artworkRecord(_ hash: String) throws -> ArtworkRecord {
        guard hash.count == 64, hash.allSatisfy(\.isHexDigit), let record = try store.artwork(hash: hash) else {
            throw LibraryError.notFound(path: "artwork \(hash)")
        }
        return record
    }

    static func size(of path: String) -> Int64 {
        RawFileName.status(path).map { Int64($0.st_size) } ?? 0
    }

    static func folderSize(_ url: URL) -> (bytes: Int64, files: Int) {
        guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else {
            return (0, 0)
        }
        var bytes: Int64 = 0, files = 0
        for case let file as URL in walk {
            guard let values = try? file.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]), values.isRegularFile == true else { continue }
            bytes += Int64(values.fileSize ?? 0)
            files += 1
        }
        return (bytes, files)
    }
}
