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
    private struct Read {
        var file: ListedFile
        var tags: TrackTags
        var info: StreamInfo
        var artworkHash: String?
        var contentHash: String?
    }

    /// Files whose folders hold nothing new travel together, up to this many in one batch.
    static let unchangedRun = 1_000

    /// Walks `root` through `source`, handing over one batch per folder that has something to say. Folders whose
    /// files are all unchanged only add to a count, so they go together (`unchangedRun` files at most, the last
    /// folder's name on it): a no-change rescan of 100,000 files handed 13,000 batches from thread to thread.
    public func scan(_ source: any ListingSource, root: URL, onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary {
        var summary = ScanSummary()
        var quiet = ScanBatch(folder: "", tracks: [], failures: [])
        try source.list(root, suffixes: decoders.suffixes) { contents in
            guard let batch = batch(contents, into: &summary) else { return }
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
        if quiet.unchanged > 0 { try onBatch(quiet) }
        return summary
    }

    /// The folder's batch, or nil when it holds no audio files and had no problems.
    func batch(_ contents: FolderContents, into summary: inout ScanSummary) -> ScanBatch? {
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
        var read: [Read] = []
        for (file, result) in zip(toProbe, probeAll(toProbe, lyricsFiles: contents.lyricsFiles)) {
            switch result {
            case let .success(probed): read.append(probed)
            case let .failure(error): failures.append(ScanFailure(path: file.path, reason: Self.reason(error)))
            }
        }
        guard !read.isEmpty || !failures.isEmpty || unchanged > 0 else { return nil }

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

    /// Probes the files on every core: decoders are stateless and codec libraries keep no global state,
    /// so a folder's files are independent. Results come back in the files' order.
    private func probeAll(_ files: [ListedFile], lyricsFiles: Set<String>?) -> [Result<Read, any Error>] {
        guard files.count > 1 else { return files.map { f in Result { try probe(f, lyricsFiles: lyricsFiles) } } }
        let slots = Slots<Result<Read, any Error>>(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            slots.set(i, Result { try probe(files[i], lyricsFiles: lyricsFiles) })
        }
        return slots.values.map { $0 ?? .failure(DecodeError(path: "", reason: "not probed")) }
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
