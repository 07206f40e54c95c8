public import CrateDomain
import CrateStorage
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import Logging
#endif

extension LibraryService {
    /// Imports files and folders. `mode` nil uses the library's mode (see `importMode(requested:)`);
    /// `deleteOriginals` nil uses the config's permission. Folders imported by reference become rescan roots.
    public func importPaths(_ paths: [String], mode requested: ImportMode? = nil, deleteOriginals: Bool? = nil,
                            progress: ((ImportProgress) -> Void)? = nil) throws -> ImportReport {
        let mode = try importMode(requested: requested)
        let roots = try paths.map { path in
            let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                .standardizedFileURL
            guard RawFileName.exists(url.path) else { throw LibraryError.notFound(path: url.path) }
            guard !managed.contains(url.path + "/") else {
                throw LibraryError.io(path: url.path, action: "import", reason: "it is Crate's own library folder")
            }
            return url
        }
        var report = ImportReport(roots: roots.map(\.path), mode: mode)
        let run = ImportRun(service: self, deleteOriginals: deleteOriginals ?? settings.deleteOriginals, rescan: false)
        try run.scan(roots.map { ($0, mode) }, into: &report, progress: progress)
        if mode == .reference {
            for root in roots where (try? root.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                try store.addLibraryRoot(root.path)
            }
        }
        return report
    }

    /// Rescans the reference roots and the import folder (files whose size and mtime are unchanged are not
    /// opened), then checks every library file for existence: gone files are flagged missing, returned ones cleared.
    public func rescan(progress: ((ImportProgress) -> Void)? = nil) throws -> ImportReport {
        let mode = try importMode()
        try? FileManager.default.createDirectory(at: settings.importFolder, withIntermediateDirectories: true)
        var roots = try store.libraryRoots().filter { FileManager.default.fileExists(atPath: $0) }
            .map { (URL(fileURLWithPath: $0), ImportMode.reference) }
        roots.append((settings.importFolder.standardizedFileURL, mode))
        var report = ImportReport(roots: roots.map(\.0.path), mode: mode)
        let run = ImportRun(service: self, deleteOriginals: settings.deleteOriginals, rescan: true)
        try run.scan(roots, into: &report, progress: progress)
        report.missing = try checkMissing()
        return report
    }

    /// Imports the recorded failures again, each by itself; those that now read fine leave the list.
    public func retryFailures(progress: ((ImportProgress) -> Void)? = nil) throws -> ImportReport {
        let mode = try importMode()
        let referenceRoots = try store.libraryRoots()
        let failed = try store.scanFailures().map(\.path)
        var report = ImportReport(roots: failed, mode: mode)
        let gone = failed.filter { !RawFileName.exists($0) && !isSymlink($0) }
        try store.clearScanFailures(paths: gone)
        let roots = failed.filter { !gone.contains($0) }.map { path in
            (URL(fileURLWithPath: path), referenceRoots.contains { path.hasPrefix($0 + "/") } ? ImportMode.reference : mode)
        }
        let run = ImportRun(service: self, deleteOriginals: settings.deleteOriginals, rescan: false)
        try run.scan(roots, into: &report, progress: progress)
        return report
    }

    private func isSymlink(_ path: String) -> Bool {
        RawFileName.linkStatus(path).map { ($0.st_mode & S_IFMT) == S_IFLNK } ?? false
    }
}

/// One import or rescan: walks roots with the scanner and turns each folder's batch into library entries.
struct ImportRun {
    let service: LibraryService
    let deleteOriginals: Bool
    let rescan: Bool

    /// `progress` nil: nobody watches, so the files are not counted either (a second walk saved).
    func scan(_ roots: [(URL, ImportMode)], into report: inout ImportReport, progress: ((ImportProgress) -> Void)?) throws {
        let started = Date()
        // First, what an interrupted import left behind (its journal names it).
        let store = service.store
        let recovered = try service.journal.recover(known: { try store.libraryFilePaths() }, managed: service.managed)
        if recovered.partialFiles + recovered.orphanCopies > 0 {
            service.logger.notice("""
                \(rescan ? "rescan" : "import"): removed what an interrupted import left: \(recovered.partialFiles) partial \
                copies, \(recovered.orphanCopies) copies no track refers to (their originals are still in place)
                """)
        }
        for path in recovered.kept {
            service.logger.warning("import: \(path) was copied by an interrupted import whose original is gone; kept (import it from there, or `crate library cleanup` deletes it)")
        }
        let scanner = try service.scanner
        let decoders = service.decoders
        // The total for progress is counted beside the scan, on its own thread: until it is known,
        // progress shows what is done so far.
        let census = Mutex<Int?>(nil)
        let paths = roots.map(\.0)
        if progress != nil {
            let suffixes = decoders.suffixes
            WorkerThread.start(name: "crate-census") { census.withLock { $0 = paths.reduce(0) { $0 + scanner.census($1, suffixes: suffixes) } } }
        }
        let artwork = service.artwork
        let options = ScanOptions(known: try service.store.knownStampsReader(rescan: rescan),
                                  keepPicture: { artwork.keep($0, origin: "embedded")?.hash }, hashContent: true)
        let folders = FolderScan(decoders: decoders, options: options)
        var done = 0
        // The writer's large page cache while importing (LibraryStore.withImportCache).
        try store.withImportCache {
            for (root, mode) in roots {
                // The scanner runs on its own thread and fills the pipe; this thread imports what comes out.
                let pipe = BatchPipe()
                let summary = Mutex(ScanSummary())
                WorkerThread.start(name: "crate-scan") {
                    do {
                        let result = try folders.scan(scanner, root: root) { try pipe.put($0) }
                        summary.withLock { $0 = result }
                        pipe.finish(nil)
                    } catch {
                        pipe.finish(error)
                    }
                }
                var pending = PendingFolders()
                do {
                    taking: while true {
                        switch try pipe.take(until: pending.deadline) {
                        case .end:
                            break taking
                        case .waiting:
                            try commit(&pending, into: &report)
                        case let .batch(batch):
                            try handle(batch, mode: mode, into: &report, pending: &pending)
                            if pending.isFull { try commit(&pending, into: &report) }
                            done += batch.fileCount
                            let total = census.withLock { $0 }.map { max($0, done) } ?? 0
                            progress?(ImportProgress(done: done, total: total, imported: report.imported,
                                                    duplicates: report.duplicateCount, failures: report.failureCount,
                                                    unchanged: report.unchanged, folder: batch.folder,
                                                    elapsed: Date().timeIntervalSince(started)))
                        }
                    }
                    try commit(&pending, into: &report)
                } catch {
                    pipe.cancel()
                    throw error
                }
                report.folders += summary.withLock { $0.folders }
                report.nonAudio += summary.withLock { $0.skipped }
            }
        }
        report.seconds = Date().timeIntervalSince(started)
        // The last word: everything looked at is the total, whether or not the count finished first.
        progress?(ImportProgress(done: done, total: done, imported: report.imported, duplicates: report.duplicateCount,
                                failures: report.failureCount, unchanged: report.unchanged, folder: "",
                                elapsed: report.seconds))
        service.logger.info("""
            \(rescan ? "rescan" : "import") \(report.roots.count == 1 ? report.roots[0] : "\(report.roots.count) paths") (\(report.mode.rawValue)): \
            \(report.imported) imported, \(report.updated) updated, \(report.relinked) relinked, \(report.unchanged) unchanged, \
            \(report.duplicateCount) duplicates, \(report.failureCount) failures in \(String(format: "%.1f", report.seconds)) s
            """)
    }

    /// Folders decided but not yet saved. Several folders go into one transaction: a transaction per folder
    /// wrote each folder's index pages again (a 300-album import wrote 90 MB for a 5 MB database).
    /// Saved at `maximumEntries`, `maximumAge` after the first folder, or when the scan ends. The last save runs
    /// alone, after the probes: at 2,000 entries it was a tenth of a 3,000-file import; 1,000 took 5 % off that
    /// import and did not slow one of 100,000 files, for a quarter more bytes written (604 -> 757 MB there).
    struct PendingFolders {
        static let maximumEntries = 1_000
        static let maximumAge: TimeInterval = 0.5

        var batch = ImportBatch()
        /// Originals to delete once their copies are committed.
        var deletions: [String] = []
        /// Partial hash -> path of the files decided since the last save (the database does not hold them yet).
        var seen: [String: String] = [:]
        var deadline: Date?

        var isFull: Bool { batch.entries.count + batch.duplicates.count + batch.failures.count >= Self.maximumEntries }
    }

    /// Saves the pending folders in one transaction, then deletes the originals the user allowed to go.
    private func commit(_ pending: inout PendingFolders, into report: inout ImportReport) throws {
        guard pending.deadline != nil else { return }
        var out = pending.batch
        let deletions = pending.deletions
        pending = PendingFolders()
        out.artwork = service.artwork.drain()
        try service.store.save(out)
        service.journal.clear()
        // Only now, with the verified copy committed, may an original go.
        for path in deletions {
            if RawFileName.withCPath(path, { unlink($0) }) == 0 { report.originalsDeleted += 1 } else {
                service.logger.warning("import: \(path): copied, but the original could not be deleted: \(AudioFileCheck.describe(errno))")
            }
        }
    }

    /// Decides, for each file of one folder: update in place, duplicate, relink or new (copied or referenced),
    /// into the pending folders.
    private func handle(_ batch: ScanBatch, mode: ImportMode, into report: inout ImportReport,
                        pending: inout PendingFolders) throws {
        if pending.deadline == nil { pending.deadline = Date().addingTimeInterval(PendingFolders.maximumAge) }
        var folderArt: String??
        report.unchanged += batch.unchanged
        for failure in batch.failures {
            pending.batch.failures.append(FailedFile(failure: failure, stamp: try? ManagedLibrary.stamp(failure.path)))
            report.add(failure: failure)
            service.logger.warning("import: \(failure.path): \(failure.reason)")
        }
        var tracks: [ScannedTrack] = []
        var hashes: [String?] = []
        for scanned in batch.tracks {
            var track = scanned
            if track.artworkHash == nil, let image = batch.folderImage {
                if folderArt == nil { folderArt = .some(service.artwork.keepFile(image)?.hash) }
                track.artworkHash = folderArt ?? nil
            }
            do {
                hashes.append(try track.contentHash ?? ContentHash.partial(track.path, size: track.size))
                tracks.append(track)
            } catch {
                fail(track, error, into: &pending.batch, report: &report)
            }
        }
        let lookups = try service.store.importLookups(zip(tracks, hashes).map { ($0.path, $1, $0.size) })
        for (i, track) in tracks.enumerated() {
            do {
                if let entry = try decide(track, hash: hashes[i], lookups[i], mode: mode, seen: &pending.seen,
                                          report: &report, out: &pending.batch) {
                    pending.batch.entries.append(entry)
                    if entry.mode == .copyThenDelete, entry.track.path != entry.originalPath {
                        if deleteOriginals { pending.deletions.append(entry.originalPath) } else { report.originalsKept += 1 }
                    }
                }
            } catch {
                fail(track, error, into: &pending.batch, report: &report)
            }
        }
    }

    private func fail(_ track: ScannedTrack, _ error: any Error, into out: inout ImportBatch, report: inout ImportReport) {
        let failure = ScanFailure(path: track.path, reason: ErrorText.describe(error))
        out.failures.append(FailedFile(failure: failure, stamp: track.stamp))
        report.add(failure: failure)
        service.logger.warning("import: \(failure.path): \(failure.reason)")
    }

    private func decide(_ track: ScannedTrack, hash: String?, _ lookup: ImportLookup, mode: ImportMode,
                        seen: inout [String: String], report: inout ImportReport, out: inout ImportBatch) throws -> LibraryEntry? {
        // A file the library already has at this path (a changed reference file): update it in place.
        if lookup.trackAtPath != nil {
            report.updated += 1
            return LibraryEntry(track: track, mode: .reference, originalPath: track.path, originalStamp: track.stamp,
                                contentHash: hash)
        }
        // A changed original of a copy: copy it again over the library's file, keeping the track.
        if let previous = lookup.importedAs, previous.mode.copiesFiles, service.managed.contains(previous.path) {
            report.updated += 1
            return try copied(track, mode: previous.mode, to: URL(fileURLWithPath: previous.path), replace: true)
        }
        guard let hash else { throw LibraryError.io(path: track.path, action: "hash", reason: "no content hash") }
        if let first = seen[hash] {
            report.add(duplicate: DuplicateFile(path: track.path, stamp: track.stamp, existingTrackID: nil, existingPath: first))
            out.duplicates.append(DuplicateFile(path: track.path, stamp: track.stamp, existingTrackID: nil, existingPath: first))
            return nil
        }
        seen[hash] = track.path
        // Same partial hash and size; the duration guards against hash collisions of look-alike files.
        let duration = track.info.duration ?? 0
        if let match = lookup.matches.first(where: { duration == 0 || $0.duration == 0 || abs($0.duration - duration) < 0.5 }) {
            if match.missing == nil && RawFileName.exists(match.path) {
                let dup = DuplicateFile(path: track.path, stamp: track.stamp, existingTrackID: match.trackID, existingPath: match.path)
                report.add(duplicate: dup)
                out.duplicates.append(dup)
                return nil
            }
            // The existing entry lost its file: this one takes its place.
            report.relinked += 1
            var entry = mode.copiesFiles
                ? try copied(track, mode: mode, to: service.managed.placement(for: track, suffix: Self.suffix(track.path)), replace: false)
                : LibraryEntry(track: track, mode: .reference, originalPath: track.path, originalStamp: track.stamp, contentHash: hash)
            entry.contentHash = hash
            entry.relinkTrackID = match.trackID
            return entry
        }
        report.imported += 1
        guard mode.copiesFiles else {
            return LibraryEntry(track: track, mode: .reference, originalPath: track.path, originalStamp: track.stamp, contentHash: hash)
        }
        var entry = try copied(track, mode: mode, to: service.managed.placement(for: track, suffix: Self.suffix(track.path)), replace: false)
        entry.contentHash = hash
        return entry
    }

    /// Copies the file into the library (verified by a full hash when the original is to be deleted).
    private func copied(_ track: ScannedTrack, mode: ImportMode, to destination: URL, replace: Bool) throws -> LibraryEntry {
        let verify = mode == .copyThenDelete && deleteOriginals
        try service.journal.begin(destination.path, original: track.path)
        let stamp = try service.managed.copy(track.path, to: destination, verify: verify)
        var copy = track
        copy.path = destination.path
        copy.ref = .file(destination.path)
        copy.size = stamp.size
        copy.modified = Date(timeIntervalSince1970: stamp.modified)
        return LibraryEntry(track: copy, mode: mode, originalPath: track.path, originalStamp: track.stamp,
                            contentHash: replace ? try ContentHash.partial(destination.path, size: stamp.size) : nil)
    }

    static func suffix(_ path: String) -> String { URL(fileURLWithPath: path).pathExtension }
}
