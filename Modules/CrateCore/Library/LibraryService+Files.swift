public import CrateDomain
import CrateStorage
import Foundation
#if canImport(Glibc)
import Glibc
import Logging
#endif

extension LibraryService {
    /// Looks at every library file (an access check, no reads): files gone or unreadable flag their
    /// tracks missing with a reason; files that are back clear the flag. Pages of 1,000 keep memory flat.
    public func checkMissing() throws -> MissingCheck {
        var check = MissingCheck()
        var after: Int64 = 0
        while true {
            let page = try store.libraryFiles(after: after, limit: 1000)
            guard let last = page.last else { break }
            after = last.trackID
            var changes: [(trackID: Int64, reason: MissingReason?, detail: String?)] = []
            for (file, state) in zip(page, Self.fileStates(page)) {
                check.checked += 1
                guard state.reason != file.missing else { continue }
                changes.append((file.trackID, state.reason, state.detail))
                if state.reason == nil { check.found += 1 } else if file.missing == nil { check.newlyMissing += 1 }
            }
            try store.setMissing(changes)
        }
        check.missing = try store.missingCounts()
        return check
    }

    /// Each file's state, the page cut in one run of files per core: the kernel's walk of each path in access(2)
    /// was a tenth of a no-change rescan of 100,000 files.
    static func fileStates(_ files: [LibraryFileRow]) -> [(reason: MissingReason?, detail: String?)] {
        let lanes = min(ProcessInfo.processInfo.activeProcessorCount, files.count / 64)
        guard lanes > 1 else { return files.map(fileState) }
        let slots = Slots<(reason: MissingReason?, detail: String?)>(count: files.count)
        let size = (files.count + lanes - 1) / lanes
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in lane * size..<min(files.count, (lane + 1) * size) { slots.set(i, fileState(files[i])) }
        }
        return zip(files, slots.values).map { file, state in state ?? fileState(file) }
    }

    /// Why a library file cannot be played now, or nil when it can.
    static func fileState(_ file: LibraryFileRow) -> (reason: MissingReason?, detail: String?) {
        guard file.source == TrackRef.fileScheme, file.sourceID.hasPrefix("/") else {
            return (.invalidURI, "'\(file.source):\(file.sourceID)' is not an absolute file path")
        }
        // One access(2) answers both questions: is it there, and may we read it.
        if RawFileName.isReadable(file.path) { return (nil, nil) }
        let code = errno
        switch code {
        case EACCES, EPERM: return (.permission, "\(RawFileName.readable(file.path)): permission denied")
        default: return (.notFound, "\(RawFileName.readable(file.path)): \(AudioFileCheck.describe(code))")
        }
    }

    /// Tracks flagged missing.
    public func missingTracks() throws -> [MissingTrack] { try store.missingTracks() }

    /// Points a track at a file found elsewhere. The file must decode; in the copy modes it is copied into the
    /// library (the track keeps its import mode), by reference it is used where it is.
    public func relink(trackID: Int64, to path: String) throws -> Track {
        guard let track = try store.track(id: trackID) else { throw StoreError.trackNotFound(trackID) }
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
        let probe = try decoders.probe(url)
        let stamp = try ManagedLibrary.stamp(url.path)
        let mode = track.importMode ?? .reference
        var scanned = ScannedTrack(ref: .file(url.path), path: url.path, size: stamp.size,
                                   modified: Date(timeIntervalSince1970: stamp.modified), tags: probe.tags, info: probe.info,
                                   title: track.title, artist: track.artist,
                                   album: AlbumKey(identity: "", title: track.album, artist: track.albumArtist, date: track.date, isCompilation: false))
        var libraryPath = url.path
        var libraryStamp = stamp
        if mode.copiesFiles {
            let destination = track.path.map { managed.contains($0) ? URL(fileURLWithPath: $0) : nil } ?? nil
            let target = destination ?? managed.placement(for: scanned, suffix: url.pathExtension)
            libraryStamp = try managed.copy(url.path, to: target, verify: false)
            libraryPath = target.path
        }
        scanned.path = libraryPath
        scanned.ref = .file(libraryPath)
        scanned.size = libraryStamp.size
        scanned.modified = Date(timeIntervalSince1970: libraryStamp.modified)
        let entry = LibraryEntry(track: scanned, mode: mode, originalPath: url.path, originalStamp: stamp,
                                 contentHash: try ContentHash.partial(libraryPath, size: libraryStamp.size))
        try store.relink(trackID: trackID, to: entry)
        guard let relinked = try store.track(id: trackID) else { throw StoreError.trackNotFound(trackID) }
        logger.info("relinked track \(trackID) to \(libraryPath)")
        events?.publish(.library(.tracks([trackID], .relinked)))
        return relinked
    }

    /// Deletes tracks from the library. Files Crate copied into its library are deleted too;
    /// referenced files are left alone. Returns the paths of files deleted.
    public func deleteTracks(_ ids: [Int64]) throws -> [String] {
        var deleted: [String] = []
        for id in ids {
            guard let file = try store.deleteTrack(id: id) else { continue }
            if file.mode.copiesFiles, managed.contains(file.path) {
                try managed.remove(file.path)
                deleted.append(file.path)
            }
        }
        if !ids.isEmpty { events?.publish(.library(.tracks(ids, .deleted))) }
        return deleted
    }

    /// Edits a track's metadata as an override. Only files Crate copied into its library can be edited
    /// (the rule of the player specification: referenced files belong to the user's own tagging).
    public func edit(trackID: Int64, _ edit: TrackEdit) throws -> Track {
        guard let track = try store.track(id: trackID) else { throw StoreError.trackNotFound(trackID) }
        guard track.importMode?.copiesFiles == true else { throw LibraryError.notEditable(trackID: trackID, path: track.path) }
        try store.applyEdit(trackID: trackID, edit)
        guard let edited = try store.track(id: trackID) else { throw StoreError.trackNotFound(trackID) }
        events?.publish(.library(.tracks([trackID], .edited)))
        return edited
    }
}
