public import CrateDomain
public import Foundation

/// Turns a listing source's folders into import batches: files the library holds unchanged are counted without
/// being opened, the rest are probed by the decoders on every core, and the folder's albums are resolved together
/// (the folder decides the majority artist of untagged albums). Any `ListingSource` imports this way.
public struct FolderScan: Sendable {
    let decoders: DecoderRegistry
    let options: ScanOptions

    public init(decoders: DecoderRegistry, options: ScanOptions = ScanOptions()) {
        self.decoders = decoders
        self.options = options
    }

    /// Tags and stream facts of a probed file; the picture bytes are already handed to `keepPicture`.
    fileprivate struct Read {
        var file: ListedFile
        var tags: TrackTags
        var info: StreamInfo
        var artworkHash: String?
        var contentHash: String?
    }

    /// Files whose folders hold nothing new travel together, up to this many in one batch.
    static let unchangedRun = 1_000
    /// Folders being probed at once: the workers start on the next folders' files while a folder's last file is
    /// still being read (one folder at a time left a core idle at every folder's end: the import of 3,000 files in
    /// 263 folders ran at 1.6 cores of 2).
    static let foldersInFlight = 4

    /// Walks `root` through `source`, handing over one batch per folder that has something to say, in the folders'
    /// order. Folders whose files are all unchanged only add to a count, so they go together (`unchangedRun` files
    /// at most, the last folder's name on it): a no-change rescan of 100,000 files handed 13,000 batches from thread
    /// to thread.
    public func scan(_ source: any ListingSource, root: URL, onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary {
        var summary = ScanSummary()
        var quiet = ScanBatch(folder: "", tracks: [], failures: [])
        var inFlight: [ProbedFolder] = []   // oldest first
        let workers = ProbeWorkers()
        defer { workers.finish() }
        func handOver(_ folder: ProbedFolder) throws {
            guard let batch = batch(folder, into: &summary) else { return }
            guard batch.tracks.isEmpty && batch.failures.isEmpty else {
                try onBatch(batch)
                return
            }
            quiet.folder = batch.folder
            quiet.unchanged += batch.unchanged
            if quiet.unchanged >= Self.unchangedRun {
                try onBatch(quiet)
                quiet.unchanged = 0
            }
        }
        do {
            try source.list(root, suffixes: decoders.suffixes) { contents in
                inFlight.append(startProbing(contents, on: workers, into: &summary))
                while inFlight.count > Self.foldersInFlight { try handOver(inFlight.removeFirst()) }
            }
            while !inFlight.isEmpty { try handOver(inFlight.removeFirst()) }
        } catch {
            // No probe outlives the scan (they keep pictures in the artwork store).
            for folder in inFlight { folder.wait() }
            throw error
        }
        if quiet.unchanged > 0 { try onBatch(quiet) }
        return summary
    }

    /// A folder whose new or changed files are being probed on the worker threads. Unchecked Sendable: each probe
    /// writes its own slot, and the results are read only after `wait()`.
    fileprivate final class ProbedFolder: @unchecked Sendable {
        let contents: FolderContents
        let toProbe: [ListedFile]
        let failures: [ScanFailure]
        let unchanged: Int
        /// Nil when nothing is probed (a rescan's unchanged folders, most of them).
        private let probing: (results: Slots<Result<Read, any Error>>, group: DispatchGroup)?

        init(_ contents: FolderContents, toProbe: [ListedFile], failures: [ScanFailure], unchanged: Int,
             on workers: ProbeWorkers, probe: @escaping @Sendable (ListedFile) throws -> Read) {
            self.contents = contents
            self.toProbe = toProbe
            self.failures = failures
            self.unchanged = unchanged
            guard !toProbe.isEmpty else {
                probing = nil
                return
            }
            let results = Slots<Result<Read, any Error>>(count: toProbe.count)
            let group = DispatchGroup()
            probing = (results, group)
            // Decoders are stateless and codec libraries keep no global state, so files are independent.
            for (i, file) in toProbe.enumerated() {
                group.enter()
                workers.run {
                    results.set(i, Result { try probe(file) })
                    group.leave()
                }
            }
        }

        func wait() { probing?.group.wait() }

        /// Each file's probe, in `toProbe`'s order, once they are done.
        var results: [Result<Read, any Error>] {
            wait()
            return probing?.results.values.map { $0 ?? .failure(DecodeError(path: "", reason: "not probed")) } ?? []
        }
    }

    /// Sorts the folder's files into those the library holds unchanged, those it cannot take (empty), and those to
    /// probe, and starts probing them.
    private func startProbing(_ contents: FolderContents, on workers: ProbeWorkers,
                              into summary: inout ScanSummary) -> ProbedFolder {
        if contents.isFolder { summary.folders += 1 }
        summary.filesSeen += contents.filesSeen
        summary.skipped += contents.skipped

        var failures = contents.failures
        var unchanged = 0
        var toProbe: [ListedFile] = []
        if !contents.files.isEmpty {
            let known = options.known(contents.folder)
            // Files a library knows by the path through a link (imported before links were resolved) are the same.
            let knownByAlias = contents.alias.map(options.known) ?? [:]
            for file in contents.files {
                let aliasPath = contents.alias.map { $0 + "/" + (file.path.split(separator: "/").last.map(String.init) ?? "") }
                if let previous = known[file.path] ?? aliasPath.flatMap({ knownByAlias[$0] }), previous.matches(file.stamp) {
                    unchanged += 1
                    continue
                }
                // After the known check: the library may hold this empty file's failure already.
                guard file.stamp.size > 0 else {
                    failures.append(ScanFailure(path: file.path, reason: "file is empty"))
                    continue
                }
                toProbe.append(file)
            }
        }
        let lyricsFiles = contents.lyricsFiles
        return ProbedFolder(contents, toProbe: toProbe, failures: failures, unchanged: unchanged, on: workers) { [self] file in
            try probe(file, lyricsFiles: lyricsFiles)
        }
    }

    /// The folder's batch once its probes are done, or nil when it holds no audio files and had no problems.
    private func batch(_ folder: ProbedFolder, into summary: inout ScanSummary) -> ScanBatch? {
        var failures = folder.failures
        var read: [Read] = []
        for (file, result) in zip(folder.toProbe, folder.results) {
            switch result {
            case let .success(probed): read.append(probed)
            case let .failure(error): failures.append(ScanFailure(path: file.path, reason: Self.reason(error)))
            }
        }
        let unchanged = folder.unchanged
        guard !read.isEmpty || !failures.isEmpty || unchanged > 0 else { return nil }

        let contents = folder.contents
        let folderURL = URL(fileURLWithPath: contents.folder, isDirectory: true)
        let albums = AlbumGrouping.keys(for: read.map(\.tags), folder: folderURL)
        let tracks = zip(read, albums).map { probed, album in
            ScannedTrack(
                ref: probed.file.ref, path: probed.file.path, size: probed.file.stamp.size,
                modified: Date(timeIntervalSince1970: probed.file.stamp.modified), tags: probed.tags, info: probed.info,
                title: probed.tags.title ?? Self.stem(probed.file.path),
                artist: probed.tags.artist ?? probed.tags.albumArtist ?? AlbumGrouping.unknownArtist,
                album: album, artworkHash: probed.artworkHash, contentHash: probed.contentHash)
        }
        summary.tracksRead += tracks.count
        summary.failures += failures.count
        summary.unchanged += unchanged
        return ScanBatch(folder: contents.folder, tracks: tracks, failures: failures, unchanged: unchanged,
                         folderImage: contents.folderImage)
    }

    private func probe(_ file: ListedFile, lyricsFiles: Set<String>?) throws -> Read {
        let probed = try decoders.probe(URL(fileURLWithPath: file.path, isDirectory: false))
        // Kept now, while probing, so no batch carries picture bytes.
        let hash = probed.picture.flatMap(options.keepPicture)
        var tags = probed.tags
        if tags.lyrics == nil, SidecarLyrics.mayExist(for: file.path, among: lyricsFiles) {
            tags.lyrics = SidecarLyrics.read(for: file.path)
        }
        // Right after the probe, which has just read the file's ends into the page cache.
        let contentHash = options.hashContent ? try ContentHash.partial(file.path, size: file.stamp.size) : nil
        return Read(file: file, tags: tags, info: probed.info, artworkHash: hash, contentHash: contentHash)
    }

    private static func stem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The failure's reason without the path, which the failure record already holds.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let e as DecodeError: e.reason
        case let RegistryError.noDecoder(_, suffix):
            suffix.isEmpty ? "no decoder for a file without a suffix" : "no available decoder handles '.\(suffix)' files"
        default: ErrorText.describe(error)
        }
    }
}
