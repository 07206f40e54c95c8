import CrateDomain
import Foundation
import Glibc

/// Turns one folder's listing into its batch: stats the audio files, counts the ones the library holds
/// unchanged without opening them, probes the rest and resolves their albums together (the folder decides
/// the majority artist of untagged albums).
struct FolderScanner {
    let decoders: DecoderRegistry
    let suffixes: Set<String>
    let options: ScanOptions

    init(decoders: DecoderRegistry, options: ScanOptions) {
        self.decoders = decoders
        self.suffixes = decoders.suffixes
        self.options = options
    }

    /// A regular file with its stamp, or why it cannot be read.
    private enum Check {
        case file(path: String, stamp: FileStamp)
        case failure(String)
    }

    /// Tags and stream facts of a probed file; the picture bytes are already handed to `keepPicture`.
    private struct Read {
        var path: String
        var stamp: FileStamp
        var tags: TrackTags
        var info: StreamInfo
        var artworkHash: String?
    }

    /// The folder's batch, or nil when it holds no audio files and had no problems.
    /// `everyFile` makes every entry a candidate whatever its suffix (a root that is a single file).
    func scan(_ listing: FolderListing, into summary: inout ScanSummary, everyFile: Bool = false) -> ScanBatch? {
        if !everyFile { summary.folders += 1 }
        summary.filesSeen += listing.files.count
        let candidates = listing.files.filter { everyFile || FileName.isCandidate($0.name, suffixes: suffixes) }
        summary.skipped += listing.files.count - candidates.count

        var failures = listing.failures
        var unchanged = 0
        var toProbe: [(path: String, stamp: FileStamp)] = []
        if !candidates.isEmpty {
            let known = options.known(listing.path)
            for entry in candidates {
                switch check(entry, fd: listing.fd) {
                case let .failure(reason):
                    failures.append(ScanFailure(path: entry.displayPath, reason: reason))
                case let .file(path, stamp):
                    if let previous = known[path], previous.matches(stamp) {
                        unchanged += 1
                        continue
                    }
                    // After the known check: the library may hold this empty file's failure already.
                    guard stamp.size > 0 else {
                        failures.append(ScanFailure(path: path, reason: "file is empty"))
                        continue
                    }
                    toProbe.append((path, stamp))
                }
            }
        }
        var read: [Read] = []
        for (file, result) in zip(toProbe, probeAll(toProbe)) {
            switch result {
            case let .success(probed): read.append(probed)
            case let .failure(error): failures.append(ScanFailure(path: file.path, reason: Self.reason(error)))
            }
        }
        guard !read.isEmpty || !failures.isEmpty || unchanged > 0 else { return nil }

        let folderURL = URL(fileURLWithPath: listing.path, isDirectory: true)
        let albums = AlbumGrouping.keys(for: read.map(\.tags), folder: folderURL)
        let tracks = zip(read, albums).map { file, album in
            ScannedTrack(
                ref: LocalFilesSource.ref(forPath: file.path), path: file.path, size: file.stamp.size,
                modified: Date(timeIntervalSince1970: file.stamp.modified), tags: file.tags, info: file.info,
                title: file.tags.title ?? Self.stem(file.path),
                artist: file.tags.artist ?? file.tags.albumArtist ?? AlbumGrouping.unknownArtist,
                album: album, artworkHash: file.artworkHash)
        }
        summary.tracksRead += tracks.count
        summary.failures += failures.count
        summary.unchanged += unchanged
        return ScanBatch(folder: listing.path, tracks: tracks, failures: failures, unchanged: unchanged,
                         folderImage: everyFile ? nil : folderImage(listing))
    }

    /// Everything short of opening the file: its name, kind, size and modification time.
    private func check(_ entry: FileEntry, fd: Int32) -> Check {
        guard let path = entry.path else { return .failure("file name is not valid UTF-8; rename it to import it") }
        guard path.utf8.count < FileProblem.pathMax else { return .failure(FileProblem.pathTooLong(path)) }
        var st = stat()
        switch entry.status {
        case let .stat(known):
            st = known
        case let .failed(code):
            return .failure(linkProblem(entry, fd: fd, errno: code, path: path))
        case nil:
            // A pipe or socket would block or fail on open; d_type already says so.
            if let kind = FileProblem.kind(type: entry.type) { return .failure(FileProblem.notRegular(kind)) }
            guard fstatat(fd, entry.cName, &st, 0) == 0 else {
                return .failure(linkProblem(entry, fd: fd, errno: errno, path: path))
            }
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(FileProblem.notRegular(FileProblem.kind(mode: st.st_mode))) }
        let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1_000_000_000
        return .file(path: path, stamp: FileStamp(size: Int64(st.st_size), modified: modified))
    }

    /// Why a stat failed, naming the target when the entry is a symbolic link.
    private func linkProblem(_ entry: FileEntry, fd: Int32, errno code: Int32, path: String) -> String {
        var buffer = [CChar](repeating: 0, count: FileProblem.pathMax)
        let length = readlinkat(fd, entry.cName, &buffer, buffer.count)
        guard length >= 0 else { return FileProblem.describe(code, path: path) }
        let target = FileName.escaped(buffer.prefix(length).map { UInt8(bitPattern: $0) })
        switch code {
        case ENOENT: return "broken symbolic link to \(target)"
        case ELOOP: return "symbolic link loop: it points to \(target), which leads back to it"
        default: return "symbolic link to \(target): " + FileProblem.describe(code, path: path)
        }
    }

    /// Probes the files on every core: decoders are stateless and codec libraries keep no global state,
    /// so a folder's files are independent. Results come back in the files' order.
    private func probeAll(_ files: [(path: String, stamp: FileStamp)]) -> [Result<Read, any Error>] {
        guard files.count > 1 else { return files.map { f in Result { try probe(f.path, stamp: f.stamp) } } }
        let slots = Slots<Result<Read, any Error>>(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            slots.set(i, Result { try probe(files[i].path, stamp: files[i].stamp) })
        }
        return slots.values.map { $0 ?? .failure(DecodeError(path: "", reason: "not probed")) }
    }

    private func probe(_ path: String, stamp: FileStamp) throws -> Read {
        let probed = try decoders.probe(URL(fileURLWithPath: path, isDirectory: false))
        // Kept now, while probing, so no batch carries picture bytes.
        let hash = probed.picture.flatMap(options.keepPicture)
        return Read(path: path, stamp: stamp, tags: probed.tags, info: probed.info, artworkHash: hash)
    }

    /// The preferred cover image among the folder's regular files.
    private func folderImage(_ listing: FolderListing) -> String? {
        var best: (rank: Int, path: String)?
        for entry in listing.files {
            guard let path = entry.path, let name = FileName.string(entry.name),
                  let rank = FileName.coverRank(name), rank < (best?.rank ?? .max) else { continue }
            let isRegular = switch entry.status {
            case let .stat(st): (st.st_mode & S_IFMT) == S_IFREG
            case .failed: false
            case nil: Int(entry.type) == Int(DT_REG)
            }
            if isRegular { best = (rank, path) }
        }
        return best?.path
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

/// One slot per iteration of a concurrent loop. Unchecked Sendable is sound here: each index is written
/// by exactly one iteration, and `values` is read only after `concurrentPerform` has returned.
/// The buffer is allocated once, so concurrent writes to distinct indices never touch shared array state.
private final class Slots<T>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: T) { storage[index] = value }

    var values: [T?] { Array(storage) }
}
