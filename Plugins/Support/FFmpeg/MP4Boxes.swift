import CrateDomain
import Foundation

/// A look at an MP4 file's top-level boxes (`ftyp`, `moov`, `mdat`, ...), only their 8- or 16-byte headers: a file
/// cut short (an interrupted copy or download) ends inside one. libavformat says only "moov atom not found" when the
/// index is what was cut off, and plays a file whose audio data was cut as a shorter track.
enum MP4Boxes {
    /// The top-level box that runs past the end of a file of `size` bytes, with where it starts; nil when every box
    /// fits (or the data is not an MP4 file). At most `limit` boxes are looked at.
    static func cutBox(in stream: any ByteStream, size: Int64, limit: Int = 4096) throws -> (type: String, offset: Int64)? {
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        for _ in 0..<limit where offset < size {
            try stream.seek(to: offset)
            let count = try header.withUnsafeMutableBytes { try stream.readFully(into: $0) }
            // Fewer than 8 bytes after the last box: trailing garbage, or a header cut in half.
            guard count >= 8 else { return offset == 0 ? nil : ("(header)", offset) }
            let type = String(decoding: header[4..<8].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            if offset == 0, type != "ftyp" { return nil }
            var length = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            if length == 1 {
                // A 64-bit size follows the type.
                guard count >= 16 else { return (type, offset) }
                length = header[8..<16].reduce(Int64(0)) { value, byte in (value << 8) | Int64(byte) }
                guard length >= 16 else { return nil }
            } else if length == 0 {
                return nil   // "to the end of the file"
            } else if length < 8 {
                return nil   // not a box: let libavformat say what it makes of it
            }
            guard length <= size - offset else { return (type, offset) }
            offset += length
        }
        return nil
    }
}
