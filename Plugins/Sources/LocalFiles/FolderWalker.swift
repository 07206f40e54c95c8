import CrateDomain
import Foundation

/// Depth-first walk that reads one folder at a time, so a batch never holds more than one folder's tracks.
/// Hidden files and folders are skipped; symlinked folders are followed once (a loop is visited once).
struct FolderWalker {
    let root: URL
    let decoders: DecoderRegistry
    private let suffixes: Set<String>
    private var summary = ScanSummary()
    private var visited = Set<String>()

    init(root: URL, decoders: DecoderRegistry) {
        self.root = root
        self.decoders = decoders
        self.suffixes = decoders.suffixes
    }

    private static let keys: [URLResourceKey] = [.isDirectoryKey, .isRegularFileKey, .fileSizeKey, .contentModificationDateKey]

    mutating func run(_ onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir) else {
            throw LocalFilesError.notFound(path: root.path)
        }
        if !isDir.boolValue {
            // A single file: scanned as a folder of one.
            try onBatch(scanFolder(root.deletingLastPathComponent(), files: [root], failures: []))
            return summary
        }
        var stack = [root]
        while let folder = stack.popLast() {
            guard visited.insert(folder.resolvingSymlinksInPath().path).inserted else { continue }
            summary.folders += 1
            let entries: [URL]
            do {
                entries = try FileManager.default.contentsOfDirectory(
                    at: folder, includingPropertiesForKeys: Self.keys, options: [.skipsHiddenFiles])
            } catch {
                summary.failures += 1
                try onBatch(ScanBatch(folder: folder.path, tracks: [],
                                      failures: [ScanFailure(path: folder.path, reason: "cannot list folder: \(Self.reason(error))")]))
                continue
            }
            var files: [URL] = []
            var subfolders: [URL] = []
            for entry in entries.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
                let values = try? entry.resourceValues(forKeys: Set(Self.keys))
                if values?.isDirectory == true {
                    subfolders.append(entry)
                } else {
                    summary.filesSeen += 1
                    if suffixes.contains(entry.pathExtension.lowercased()) {
                        files.append(entry)
                    } else {
                        summary.skipped += 1
                    }
                }
            }
            // Reversed so the stack pops folders in name order.
            stack.append(contentsOf: subfolders.reversed())
            if !files.isEmpty { try onBatch(scanFolder(folder, files: files, failures: [])) }
        }
        return summary
    }

    /// Probes each file of one folder and resolves their albums together (the folder decides
    /// the majority artist of untagged albums).
    private mutating func scanFolder(_ folder: URL, files: [URL], failures: [ScanFailure]) -> ScanBatch {
        var failures = failures
        var read: [(url: URL, probe: ProbedFile, size: Int64, modified: Date)] = []
        for url in files {
            do {
                let probe = try decoders.probe(url)
                let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
                read.append((url, probe, Int64(values?.fileSize ?? 0), values?.contentModificationDate ?? Date()))
            } catch {
                failures.append(ScanFailure(path: url.path, reason: Self.reason(error)))
            }
        }
        let albums = AlbumGrouping.keys(for: read.map(\.probe.tags), folder: folder)
        let tracks = zip(read, albums).map { file, album in
            let tags = file.probe.tags
            return ScannedTrack(
                ref: LocalFilesSource.ref(forPath: file.url.path), path: file.url.path, size: file.size,
                modified: file.modified, tags: tags, info: file.probe.info,
                title: tags.title ?? file.url.deletingPathExtension().lastPathComponent,
                artist: tags.artist ?? tags.albumArtist ?? AlbumGrouping.unknownArtist,
                album: album)
        }
        summary.tracksRead += tracks.count
        summary.failures += failures.count
        return ScanBatch(folder: folder.path, tracks: tracks, failures: failures)
    }

    /// The failure's reason without the path, which the failure record already holds.
    static func reason(_ error: any Error) -> String {
        (error as? DecodeError)?.reason ?? ErrorText.describe(error)
    }
}
