import CrateTestSupport
import Foundation
import Glibc

/// Bad files as real collections hold them, made byte by byte: tags whose sizes point past the end,
/// huge tag frames, cut and random files, and file-system oddities (pipes, sockets, link loops,
/// names that are not UTF-8, paths longer than PATH_MAX).
enum HardInputs {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Bytes

    static func bigEndian32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    static func littleEndian32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// An ID3v2 tag size: 28 bits in four bytes of seven.
    static func syncsafe(_ v: Int) -> [UInt8] {
        [UInt8((v >> 21) & 0x7F), UInt8((v >> 14) & 0x7F), UInt8((v >> 7) & 0x7F), UInt8(v & 0x7F)]
    }

    /// An ID3v2.3 header declaring `size` bytes of frames.
    static func id3Header(size: Int) -> [UInt8] {
        Array("ID3".utf8) + [3, 0, 0] + syncsafe(size)
    }

    /// An ID3v2.3 TXXX frame (ISO-8859-1) whose value is `valueBytes` bytes of "x".
    static func txxxFrame(description: String, valueBytes: Int) -> [UInt8] {
        let body = [0] + Array(description.utf8) + [0] + [UInt8](repeating: UInt8(ascii: "x"), count: valueBytes)
        return Array("TXXX".utf8) + bigEndian32(UInt32(body.count)) + [0, 0] + body
    }

    /// The bytes of an MP3 file without its leading ID3v2 tag (ffmpeg always writes one).
    static func withoutID3(_ data: [UInt8]) -> [UInt8] {
        guard data.count >= 10, data.starts(with: Array("ID3".utf8)) else { return data }
        let size = data[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        let footer = data[5] & 0x10 != 0 ? 10 : 0
        return Array(data.dropFirst(min(data.count, 10 + size + footer)))
    }

    // MARK: Files

    /// A real encoded file, from the test sine.
    static func real(_ codec: Fixture.Codec, at url: URL, frames: Int = 22_050, title: String? = nil) throws -> [UInt8] {
        if codec == .wav {
            try Fixture.writeWAV(Fixture.sine(frames: frames), sampleRate: 44100, channels: 2, to: url)
        } else {
            try Fixture.encode(codec, to: url, frames: frames, tags: title.map { ["title": $0] } ?? [:])
        }
        return [UInt8](try Data(contentsOf: url))
    }

    static func write(_ bytes: [UInt8], to url: URL) throws {
        try Data(bytes).write(to: url)
    }

    /// Deterministic noise, so a failure can be reproduced.
    static func random(count: Int = 64 << 10, seed: UInt64) -> [UInt8] {
        [UInt8](DecoderChecks.randomBytes(count: count, seed: seed))
    }

    /// A real MP3 whose audio follows an ID3v2 header declaring `declared` bytes (far more than there are).
    static func mp3WithID3PastEnd(at url: URL, declared: Int = 200 << 20) throws {
        let audio = withoutID3(try real(.mp3, at: url))
        try write(id3Header(size: declared) + audio, to: url)
    }

    /// A real MP3 behind an ID3v2 tag holding one TXXX frame of `valueBytes` bytes.
    static func mp3WithHugeTXXX(at url: URL, valueBytes: Int = 30 << 20, title: String) throws {
        let audio = withoutID3(try real(.mp3, at: url))
        let title = Array("TIT2".utf8) + bigEndian32(UInt32(title.utf8.count + 1)) + [0, 0, 0] + Array(title.utf8)
        let frames = title + txxxFrame(description: "HUGE", valueBytes: valueBytes)
        try write(id3Header(size: frames.count) + frames + audio, to: url)
    }

    /// A real FLAC whose first metadata block (STREAMINFO) declares 16 MB, running past the end of the file.
    static func flacWithFirstBlockPastEnd(at url: URL) throws {
        var bytes = try real(.flac, at: url)
        guard bytes.starts(with: Array("fLaC".utf8)) else { throw Failure(description: "ffmpeg wrote no fLaC marker") }
        bytes.replaceSubrange(5..<8, with: [0xFF, 0xFF, 0xFF])
        try write(bytes, to: url)
    }

    /// A real FLAC whose last metadata block declares more bytes than the file has.
    static func flacWithLastBlockPastEnd(at url: URL) throws {
        var bytes = try real(.flac, at: url)
        var offset = 4
        while offset + 4 <= bytes.count {
            let length = Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset] & 0x80 != 0 {
                bytes.replaceSubrange(offset + 1..<offset + 4, with: [0xFF, 0xFF, 0xFF])
                return try write(bytes, to: url)
            }
            offset += 4 + length
        }
        throw Failure(description: "no last metadata block found")
    }

    /// A FLAC whose VORBIS_COMMENT block holds one comment of `valueBytes` (a block holds at most 16 MB).
    static func flacWithHugeComment(at url: URL, valueBytes: Int = (16 << 20) - 1024, title: String) throws {
        var bytes = try real(.flac, at: url, title: title)
        // Blocks: STREAMINFO, then whatever ffmpeg wrote; the comment block goes right after STREAMINFO.
        let vendor = Array("crate".utf8)
        let comments = [Array("TITLE=\(title)".utf8), Array("HUGE=".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: valueBytes)]
        var body = littleEndian32(UInt32(vendor.count)) + vendor + littleEndian32(UInt32(comments.count))
        for c in comments { body += littleEndian32(UInt32(c.count)) + c }
        guard body.count < 1 << 24 else { throw Failure(description: "comment too large for a FLAC block") }
        // Drop ffmpeg's own comment block (type 4) by retyping it as PADDING (type 1), which readers skip.
        var offset = 4
        while offset + 4 <= bytes.count {
            let last = bytes[offset] & 0x80 != 0
            let length = Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset] & 0x7F == 4 { bytes[offset] = (last ? 0x80 : 0) | 1 }
            offset += 4 + length
            if last { break }
        }
        let header = [UInt8(4), UInt8(body.count >> 16), UInt8((body.count >> 8) & 0xFF), UInt8(body.count & 0xFF)]
        // STREAMINFO is never last once the comment block follows it.
        bytes[4] &= 0x7F
        bytes.insert(contentsOf: header + body, at: 8 + 34)
        try write(bytes, to: url)
    }

    /// A 16-bit WAV whose data chunk declares far more bytes than follow.
    static func wavWithDataPastEnd(at url: URL) throws {
        var bytes = try real(.wav, at: url)
        guard bytes[36..<40].elementsEqual("data".utf8) else { throw Failure(description: "unexpected WAV layout") }
        bytes.replaceSubrange(40..<44, with: littleEndian32(0x7FFF_0000))
        try write(bytes, to: url)
    }

    /// A 16-bit WAV with a LIST chunk before the data chunk that declares far more bytes than the file has.
    static func wavWithListPastEnd(at url: URL) throws {
        var bytes = try real(.wav, at: url)
        let list = Array("LIST".utf8) + littleEndian32(0x7FFF_0000) + Array("INFO".utf8)
        bytes.insert(contentsOf: list, at: 36)
        try write(bytes, to: url)
    }

    /// The first half of a real file.
    static func truncated(_ codec: Fixture.Codec, at url: URL) throws {
        let bytes = try real(codec, at: url, frames: 88_200)
        try write(Array(bytes.prefix(bytes.count / 2)), to: url)
    }

    // MARK: File-system oddities

    static func mkfifo(at url: URL) throws {
        guard Glibc.mkfifo(url.path, 0o644) == 0 else { throw Failure(description: "mkfifo: \(errno)") }
    }

    /// A listening Unix socket bound at `url`; the caller closes the returned descriptor.
    static func socket(at url: URL) throws -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(url.path.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw Failure(description: "socket path too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw Failure(description: "bind: \(errno)")
        }
        return fd
    }

    /// Creates a file whose name is `name` as raw bytes (which need not be UTF-8) inside `folder`.
    static func createFile(named name: [UInt8], in folder: URL, contents: [UInt8]) throws {
        let dir = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard dir >= 0 else { throw Failure(description: "open \(folder.path): \(errno)") }
        defer { close(dir) }
        try write(contents, named: name, at: dir)
    }

    static func createFolder(named name: [UInt8], in folder: URL) throws {
        let dir = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard dir >= 0 else { throw Failure(description: "open \(folder.path): \(errno)") }
        defer { close(dir) }
        guard mkdirat(dir, cString(name), 0o755) == 0 else { throw Failure(description: "mkdirat: \(errno)") }
    }

    static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }

    private static func write(_ contents: [UInt8], named name: [UInt8], at dir: Int32) throws {
        let fd = openat(dir, cString(name), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(description: "openat: \(errno)") }
        defer { close(fd) }
        let written = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == contents.count else { throw Failure(description: "write: \(errno)") }
    }

    /// A chain of `levels` folders named by `name(level)` under `folder`, made with mkdirat/openat so the
    /// whole path may exceed PATH_MAX; `contents` is written as `file` in the deepest one.
    static func chain(in folder: URL, levels: Int, name: (Int) -> String, file: String, contents: [UInt8]) throws {
        var fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw Failure(description: "open \(folder.path): \(errno)") }
        defer { close(fd) }
        for level in 0..<levels {
            let component = name(level)
            guard mkdirat(fd, component, 0o755) == 0 else { throw Failure(description: "mkdirat level \(level): \(errno)") }
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY)
            guard next >= 0 else { throw Failure(description: "openat level \(level): \(errno)") }
            close(fd)
            fd = next
        }
        try write(contents, named: Array(file.utf8), at: fd)
    }

    /// Removes what `chain` made, relative to open folders since the full path is too long for unlink.
    static func removeChain(in folder: URL, levels: Int, name: (Int) -> String, file: String) {
        var fds = [open(folder.path, O_RDONLY | O_DIRECTORY)]
        for level in 0..<levels {
            guard let parent = fds.last, parent >= 0 else { break }
            fds.append(openat(parent, name(level), O_RDONLY | O_DIRECTORY))
        }
        if let deepest = fds.last, deepest >= 0 { unlinkat(deepest, file, 0) }
        for level in stride(from: fds.count - 2, through: 0, by: -1) where fds[level] >= 0 {
            unlinkat(fds[level], name(level), AT_REMOVEDIR)
        }
        for fd in fds where fd >= 0 { close(fd) }
    }
}
