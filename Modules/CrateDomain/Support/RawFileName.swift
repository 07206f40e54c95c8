public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// File names that are not UTF-8 (Latin-1 or Windows-1252 names from disks written by old Windows machines), carried
/// in Swift strings without loss. Each byte that is not part of valid UTF-8 becomes the private-use character
/// U+F700 + byte (U+F780–U+F7FF) and turns back into that byte at the system call: paths stay exactly the bytes on
/// disk through the library, rescans and relinks (Python's "surrogateescape" idea, in a range Swift strings can hold).
/// Valid UTF-8 names are unchanged. For people, `readable` shows such bytes decoded in a fallback character set.
public enum RawFileName {
    static let escapeBase: UInt32 = 0xF700
    static let escaped: ClosedRange<UInt32> = 0xF780...0xF7FF

    /// The bytes of a name or path as a string: UTF-8 where they are, each other byte escaped.
    public static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String where Bytes.Index == Int {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var out = String.UnicodeScalarView()
        var i = bytes.startIndex
        while i < bytes.endIndex {
            // A scalar is 1 to 4 bytes and no shorter prefix of it is valid, so the first length that validates
            // is the scalar's own.
            var length = 0
            for n in 1...4 where i + n <= bytes.endIndex {
                if let scalar = String(validating: bytes[i..<(i + n)], as: UTF8.self)?.unicodeScalars.first {
                    out.append(scalar)
                    length = n
                    break
                }
            }
            if length == 0 {
                // Bytes below 0x80 are always valid UTF-8: only 0x80–0xFF get here.
                out.append(Unicode.Scalar(escapeBase + UInt32(bytes[i])) ?? "?")
                length = 1
            }
            i += length
        }
        return String(out)
    }

    /// Whether `path` holds escaped bytes.
    public static func hasEscapes(_ path: String) -> Bool {
        // Every escape is EF 9E xx or EF 9F xx in UTF-8, and most paths hold no EF byte at all: the scan for it is
        // cheap, and only then are the scalars looked at (every file of an import or rescan passes here).
        guard path.utf8.contains(0xEF) else { return false }
        return path.unicodeScalars.contains { escaped.contains($0.value) }
    }

    /// The path's length on disk in bytes (what PATH_MAX limits), without building the bytes when it has no escapes.
    public static func byteCount(_ path: String) -> Int {
        hasEscapes(path) ? bytes(path).count : path.utf8.count
    }

    /// The bytes on disk of a path made by `string`.
    public static func bytes(_ path: String) -> [UInt8] {
        guard hasEscapes(path) else { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if escaped.contains(scalar.value) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Calls `body` with the path as the C string of its bytes on disk.
    public static func withCPath<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        guard hasEscapes(path) else { return try path.withCString(body) }
        let raw = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try raw.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return try "".withCString(body) }  // never: it holds the NUL
            return try body(base)
        }
    }

    // MARK: System calls on such paths (Foundation's FileManager would encode the escapes as UTF-8)

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        withCPath(path) { Glibc.open($0, flags, mode) }
    }

    /// stat(2), following links; nil with `errno` set when it fails.
    public static func status(_ path: String) -> stat? {
        var st = stat()
        return withCPath(path) { fstatat(AT_FDCWD, $0, &st, 0) } == 0 ? st : nil
    }

    /// lstat(2): the link itself; nil with `errno` set when it fails.
    public static func linkStatus(_ path: String) -> stat? {
        var st = stat()
        return withCPath(path) { fstatat(AT_FDCWD, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0 ? st : nil
    }

    public static func exists(_ path: String) -> Bool { status(path) != nil }

    /// The names in a folder (without "." and ".."), nil when it cannot be listed.
    public static func names(in folder: String) -> [String]? {
        guard let dir = withCPath(folder, { opendir($0) }) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            names.append(string(bytes))
        }
        return names
    }

    public static func isReadable(_ path: String) -> Bool { withCPath(path) { access($0, R_OK) } == 0 }

    /// The whole file's bytes; `limit` refuses larger files.
    public static func contents(_ path: String, limit: Int = 64 << 20) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let data = try handle.readToEnd() ?? Data()
        guard data.count <= limit else { throw CocoaError(.fileReadTooLarge, userInfo: [NSFilePathErrorKey: path]) }
        return data
    }

    // MARK: For people

    /// The character set `readable` uses unless told: `import.filename_charset`, set when the settings are loaded.
    public static var displayCharset: FileNameCharset {
        get { FileNameCharset.allCases[chosenCharset.load(ordering: .relaxed)] }
        set { chosenCharset.store(FileNameCharset.allCases.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
    }
    private static let chosenCharset = Atomic<Int>(0)

    /// `path` with its escaped bytes decoded in `charset` (a name copied from an old Windows disk reads "Café", not
    /// "Caf\u{F7E9}"). Not a path any more: for showing only.
    public static func readable(_ path: String, charset: FileNameCharset = displayCharset) -> String {
        guard hasEscapes(path) else { return path }
        var out = String.UnicodeScalarView()
        for scalar in path.unicodeScalars {
            if escaped.contains(scalar.value) {
                out.append(charset.character(UInt8(scalar.value - escapeBase)))
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}

/// The single-byte character set non-UTF-8 file names are shown in (`library.filename_charset`).
public enum FileNameCharset: String, Sendable, CaseIterable {
    case windows1252 = "windows-1252"
    case latin1 = "iso-8859-1"
    case latin9 = "iso-8859-15"

    /// The character of byte `byte` (0x80–0xFF).
    func character(_ byte: UInt8) -> Unicode.Scalar {
        let latin1 = Unicode.Scalar(byte)
        switch self {
        case .latin1:
            return latin1
        case .latin9:
            let changed: [UInt8: UInt32] = [0xA4: 0x20AC, 0xA6: 0x160, 0xA8: 0x161, 0xB4: 0x17D, 0xB8: 0x17E,
                                            0xBC: 0x152, 0xBD: 0x153, 0xBE: 0x178]
            return changed[byte].flatMap(Unicode.Scalar.init) ?? latin1
        case .windows1252:
            guard (0x80...0x9F).contains(byte) else { return latin1 }
            // 0x80–0x9F: Windows' printable characters (five positions are unassigned and stay as Latin-1 controls).
            let table: [UInt32] = [0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160,
                                   0x2039, 0x152, 0x8D, 0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
                                   0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178]
            return Unicode.Scalar(table[Int(byte) - 0x80]) ?? latin1
        }
    }
}
