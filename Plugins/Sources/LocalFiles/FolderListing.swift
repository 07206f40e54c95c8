import CrateDomain
import Glibc

/// One folder's non-folder entries, in byte order of names, hidden ones left out.
/// `fd` is the open folder (or AT_FDCWD with absolute names) and is valid only while the walker's visitor runs:
/// names are resolved relative to it, which is cheaper than resolving whole paths.
struct FolderListing {
    var path: String
    var fd: Int32
    /// The path it was reached by, when that went through a symbolic link (the real path is `path`).
    var alias: String? = nil
    var files: [FileEntry] = []
    /// Problems with the folder itself or its subfolders (cannot list, path too long).
    var failures: [ScanFailure] = []
}

/// A file, symbolic link or other non-folder entry of a listing.
struct FileEntry {
    /// The name as bytes (no NUL), for suffix checks and sorting.
    var name: [UInt8]
    /// The same, NUL-terminated, for the *at system calls.
    var cName: [CChar]
    /// The absolute path (a name that is not UTF-8 keeps its bytes as escapes: `RawFileName`).
    var path: String
    /// readdir's d_type; DT_UNKNOWN when the file system does not say.
    var type: UInt8
    /// Set when the walker had to stat the entry already (symbolic links, unknown types).
    var status: Status?

    enum Status {
        case stat(stat)
        case failed(errno: Int32)
    }

    init(name: [UInt8], in folder: String, type: UInt8, status: Status?) {
        self.name = name
        self.cName = name.map { CChar(bitPattern: $0) } + [0]
        self.path = FileName.join(folder, FileName.string(name))
        self.type = type
        self.status = status
    }

    /// A file given by its absolute path (a scan root that is a file): *at calls take it with AT_FDCWD.
    init(absolutePath: String) {
        self.name = RawFileName.bytes(absolutePath)
        self.cName = name.map { CChar(bitPattern: $0) } + [0]
        self.path = absolutePath
        self.type = UInt8(DT_UNKNOWN)
        self.status = nil
    }
}

/// Words for system errors and file kinds that tell a user what to do.
enum FileProblem {
    /// The longest path the system calls take, terminating NUL included.
    static let pathMax = Int(PATH_MAX)

    static func pathTooLong(_ path: String) -> String {
        "path is \(RawFileName.byteCount(path)) bytes, longer than the system limit of \(pathMax - 1); move it higher up to import it"
    }

    static func describe(_ code: Int32, path: String) -> String {
        switch code {
        case ENAMETOOLONG: pathTooLong(path)
        case ELOOP: "symbolic link loop: the link leads back to itself"
        default: AudioFileCheck.describe(code)
        }
    }

    /// What a non-regular file is, from its stat mode.
    static func kind(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a folder"
        default: "an unknown kind of file"
        }
    }

    /// The same from readdir's d_type, when that already tells, so no stat is needed.
    static func kind(type: UInt8) -> String? {
        switch Int(type) {
        case Int(DT_FIFO): "a named pipe"
        case Int(DT_SOCK): "a socket"
        case Int(DT_CHR): "a character device"
        case Int(DT_BLK): "a block device"
        default: nil
        }
    }

    static func notRegular(_ kind: String) -> String {
        "not a regular file (it is \(kind))"
    }
}
