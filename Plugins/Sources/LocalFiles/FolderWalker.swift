import CrateDomain
import Glibc

/// Depth-first walk over the folders under a root with opendir/readdir, one folder at a time.
/// Iterative (an explicit stack), so a deep tree cannot overflow the thread's stack; a folder comes
/// before its subfolders, and names go in byte order. Hidden entries are skipped. Symbolic links to
/// folders are followed, but every folder is visited once, by (device, inode): a link back to an
/// ancestor is not walked again, and the first path to reach a folder is the one used.
struct FolderWalker {
    /// Folders to walk: the real path, and the path through a link when one led there.
    private var stack: [(path: String, alias: String?)]
    private var visited = Set<FolderID>()

    /// `alias`: the root's path as given, when that went through a link (`root` is its real path).
    init(root: String, alias: String? = nil) {
        stack = [(root, alias)]
    }

    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// Calls `visit` once per folder. A folder that cannot be listed is visited with one failure and no files.
    mutating func walk(_ visit: (FolderListing) throws -> Void) rethrows {
        while let (path, alias) = stack.popLast() {
            let fd = RawFileName.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                // Still keyed by identity when stat can tell, so a link to an unreadable folder fails once.
                if let st = RawFileName.status(path), !visited.insert(FolderID(st)).inserted { continue }
                try visit(FolderListing(path: path, fd: -1, failures: [
                    ScanFailure(path: path, reason: "cannot list this folder: " + FileProblem.describe(code, path: path)),
                ]))
                continue
            }
            var st = stat()
            guard fstat(fd, &st) == 0, visited.insert(FolderID(st)).inserted else {
                close(fd)
                continue
            }
            // fdopendir owns the descriptor from here: closedir closes it.
            guard let dir = fdopendir(fd) else {
                let code = errno
                close(fd)
                try visit(FolderListing(path: path, fd: -1, failures: [
                    ScanFailure(path: path, reason: "cannot list this folder: " + FileProblem.describe(code, path: path)),
                ]))
                continue
            }
            defer { closedir(dir) }
            let (read, subfolders) = Self.read(dir, fd: fd, path: path, alias: alias)
            var listing = read
            listing.alias = alias
            // Reversed, so the stack pops them in name order.
            stack.append(contentsOf: subfolders.reversed())
            try visit(listing)
        }
    }

    /// Reads all entries of an open folder: non-folders into the listing, folders as paths to walk.
    private static func read(_ dir: OpaquePointer, fd: Int32, path: String, alias: String?) -> (FolderListing, [(path: String, alias: String?)]) {
        var listing = FolderListing(path: path, fd: fd)
        var entries: [(name: [UInt8], type: UInt8)] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                let code = errno
                if code != 0 {
                    listing.failures.append(ScanFailure(
                        path: path, reason: "cannot list all of this folder: " + FileProblem.describe(code, path: path)))
                }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            // Also drops "." and "..".
            guard !name.isEmpty, !FileName.isHidden(name) else { continue }
            entries.append((name, entry.pointee.d_type))
        }
        entries.sort { $0.name.lexicographicallyPrecedes($1.name) }

        var subfolders: [(path: String, alias: String?)] = []
        for (name, type) in entries {
            var status: FileEntry.Status?
            var isFolder = Int(type) == Int(DT_DIR)
            if Int(type) == Int(DT_LNK) || Int(type) == Int(DT_UNKNOWN) {
                // Only a stat says where a link leads, or what an entry of unknown type is.
                var st = stat()
                let cName = name.map { CChar(bitPattern: $0) } + [0]
                if fstatat(fd, cName, &st, 0) == 0 {
                    isFolder = (st.st_mode & S_IFMT) == S_IFDIR
                    status = .stat(st)
                } else {
                    status = .failed(errno: errno)
                }
            }
            guard isFolder else {
                listing.files.append(FileEntry(name: name, in: path, type: type, status: status))
                continue
            }
            let text = FileName.string(name)
            var folder = FileName.join(path, text)
            // A folder reached through a link is walked (and its files stored) under its real path: the link
            // may go, the files stay. The path through the link is kept as its alias (libraries imported before
            // know the files by it).
            var reachedAs = alias.map { FileName.join($0, text) }
            if Int(type) == Int(DT_LNK), let real = RawFileName.withCPath(folder, { realpath($0, nil) }) {
                reachedAs = reachedAs ?? folder
                folder = RawFileName.string(UnsafeRawBufferPointer(start: real, count: strlen(real)))
                free(real)
            }
            // The decoders and the player open files by path, so files below this could never play.
            if RawFileName.byteCount(folder) < FileProblem.pathMax {
                subfolders.append((folder, reachedAs))
            } else {
                listing.failures.append(ScanFailure(path: folder, reason: "cannot list this folder: " + FileProblem.pathTooLong(folder)))
            }
        }
        return (listing, subfolders)
    }
}
