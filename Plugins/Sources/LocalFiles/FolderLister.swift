import CrateDomain
import Foundation
import Glibc

/// Turns one folder's listing into what Core needs to import it, without opening a file: each audio file's stamp
/// (size, modification time) and ref, every entry that cannot be read with why, and the folder's cover image.
struct FolderLister {
    let suffixes: Set<String>

    /// A regular file with its stamp, or why it cannot be read.
    private enum Check {
        case file(path: String, stamp: FileStamp)
        case failure(String)
    }

    /// `everyFile` makes every entry a candidate whatever its suffix (a root that is a single file).
    func contents(_ listing: FolderListing, everyFile: Bool = false) -> FolderContents {
        let candidates = listing.files.filter { everyFile || FileName.isCandidate($0.name, suffixes: suffixes) }
        var failures = listing.failures
        // A broken link says so whatever its name: it may have been a folder of music.
        var brokenLinks = 0
        for entry in listing.files where Int(entry.type) == Int(DT_LNK) && !everyFile && !FileName.isCandidate(entry.name, suffixes: suffixes) {
            if case let .failed(code) = entry.status {
                failures.append(ScanFailure(path: entry.path, reason: linkProblem(entry, fd: listing.fd, errno: code, path: entry.path)))
                brokenLinks += 1
            }
        }
        var files: [ListedFile] = []
        for entry in candidates {
            switch check(entry, fd: listing.fd) {
            case let .failure(reason): failures.append(ScanFailure(path: entry.path, reason: reason))
            case let .file(path, stamp): files.append(ListedFile(path: path, ref: LocalFilesSource.ref(forPath: path), stamp: stamp))
            }
        }
        return FolderContents(folder: listing.path, files: files, failures: failures, filesSeen: listing.files.count,
                              skipped: listing.files.count - candidates.count - brokenLinks,
                              folderImage: everyFile ? nil : folderImage(listing), isFolder: !everyFile, alias: listing.alias,
                              lyricsFiles: everyFile ? nil : lyricsFiles(listing))
    }

    /// The folder's `.lrc` and `.LRC` files (whatever their kind: the scanner reads them and says what it finds).
    private func lyricsFiles(_ listing: FolderListing) -> Set<String> {
        Set(listing.files.lazy.filter { $0.name.count > 4 && ($0.name.suffix(4).elementsEqual(".lrc".utf8)
                || $0.name.suffix(4).elementsEqual(".LRC".utf8)) }.map(\.path))
    }

    /// Everything short of opening the file: its name, kind, size and modification time.
    private func check(_ entry: FileEntry, fd: Int32) -> Check {
        let path = entry.path
        guard RawFileName.byteCount(path) < FileProblem.pathMax else { return .failure(FileProblem.pathTooLong(path)) }
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
        let target = RawFileName.readable(FileName.string(buffer.prefix(length).map { UInt8(bitPattern: $0) }))
        switch code {
        case ENOENT: return "broken symbolic link to \(target)"
        case ELOOP: return "symbolic link loop: it points to \(target), which leads back to it"
        default: return "symbolic link to \(target): " + FileProblem.describe(code, path: path)
        }
    }

    /// The preferred cover image among the folder's regular files.
    private func folderImage(_ listing: FolderListing) -> String? {
        var best: (rank: Int, path: String)?
        for entry in listing.files {
            guard let rank = FileName.coverRank(FileName.string(entry.name)), rank < (best?.rank ?? .max) else { continue }
            let isRegular = switch entry.status {
            case let .stat(st): (st.st_mode & S_IFMT) == S_IFREG
            case .failed: false
            case nil: Int(entry.type) == Int(DT_REG)
            }
            if isRegular { best = (rank, entry.path) }
        }
        return best?.path
    }
}
