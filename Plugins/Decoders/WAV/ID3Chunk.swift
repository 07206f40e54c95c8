import CrateDomain
import Foundation

/// The ID3v2 tag in a WAV file's `id3 ` (or `ID3 `) chunk, as MusicBrainz Picard, mutagen-based tools and Mp3tag
/// write it: text frames, TXXX and USLT, in ID3v2.2, 2.3 or 2.4. Every length is checked against the bytes left;
/// a damaged tag gives what was read before the damage.
enum ID3Chunk {
    static func read(_ bytes: [UInt8], into mapper: inout TagMapper) {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return }
        let version = Int(bytes[3]), flags = bytes[5]
        guard (2...4).contains(version) else { return }
        let declared = syncsafe(bytes, 6)
        var tag = Array(bytes[10..<min(bytes.count, 10 + declared)])
        // Whole-tag unsynchronisation (2.2, 2.3): FF 00 stands for FF.
        if flags & 0x80 != 0, version < 4 { tag = resync(tag) }
        var at = 0
        if flags & 0x40 != 0, version >= 3, tag.count >= 4 {
            let extended = version == 4 ? syncsafe(tag, 0) : Int(be32(tag, 0)) + 4
            at = extended
        }
        let idLength = version == 2 ? 3 : 4, headerLength = version == 2 ? 6 : 10
        while at + headerLength <= tag.count {
            let idBytes = tag[at..<at + idLength]
            guard idBytes.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }  // padding
            let id = String(decoding: idBytes, as: UTF8.self)
            let size = version == 2 ? Int(tag[at + 3]) << 16 | Int(tag[at + 4]) << 8 | Int(tag[at + 5])
                : version == 4 ? syncsafe(tag, at + 4) : Int(be32(tag, at + 4))
            let start = at + headerLength
            guard size > 0, size <= tag.count - start else { break }
            var body = Array(tag[start..<start + size])
            if version == 4, tag[at + 9] & 0x02 != 0 { body = resync(body) }   // frame-level unsynchronisation
            frame(id, body, into: &mapper)
            at = start + size
        }
    }

    private static func frame(_ id: String, _ body: [UInt8], into mapper: inout TagMapper) {
        guard let encoding = body.first else { return }
        let rest = Array(body.dropFirst())
        switch id {
        case "TXXX", "TXX":
            let (description, value) = split(rest, encoding)
            mapper.id3Frame("TXXX", value, description: description)
        case "USLT", "ULT":
            guard rest.count > 3 else { return }
            mapper.id3Frame("USLT", split(Array(rest.dropFirst(3)), encoding).1)
        case _ where id.hasPrefix("T"):
            // Several values (2.4) are NUL-separated: each goes to the mapper (a genre keeps them all).
            var remaining = rest
            while !remaining.isEmpty {
                let (value, after) = splitBytes(remaining, encoding)
                if !value.isEmpty { mapper.id3Frame(id, text(value, encoding)) }
                remaining = after
            }
        default:
            break
        }
    }

    /// The text before and after the first terminator of `encoding` (one NUL byte, or two for UTF-16).
    private static func split(_ bytes: [UInt8], _ encoding: UInt8) -> (String, String) {
        let (before, after) = splitBytes(bytes, encoding)
        return (text(before, encoding), text(after, encoding))
    }

    private static func splitBytes(_ bytes: [UInt8], _ encoding: UInt8) -> ([UInt8], [UInt8]) {
        let wide = encoding == 1 || encoding == 2
        var i = 0
        while i + (wide ? 1 : 0) < bytes.count {
            if wide ? (bytes[i] == 0 && bytes[i + 1] == 0) : bytes[i] == 0 {
                return (Array(bytes[..<i]), Array(bytes[(i + (wide ? 2 : 1))...]))
            }
            i += wide ? 2 : 1
        }
        return (bytes, [])
    }

    private static func text(_ bytes: [UInt8], _ encoding: UInt8) -> String {
        let data = Data(bytes)
        switch encoding {
        case 0: return String(bytes.map { Character(Unicode.Scalar($0)) })                       // Latin-1
        case 1: return String(data: data, encoding: .utf16) ?? ""                                // with a BOM
        case 2: return String(data: data, encoding: .utf16BigEndian) ?? ""
        default: return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func syncsafe(_ b: [UInt8], _ o: Int) -> Int {
        guard o + 4 <= b.count else { return 0 }
        return Int(b[o] & 0x7F) << 21 | Int(b[o + 1] & 0x7F) << 14 | Int(b[o + 2] & 0x7F) << 7 | Int(b[o + 3] & 0x7F)
    }

    private static func be32(_ b: [UInt8], _ o: Int) -> UInt32 {
        guard o + 4 <= b.count else { return 0 }
        return UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }

    private static func resync(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            out.append(b[i])
            if b[i] == 0xFF, i + 1 < b.count, b[i + 1] == 0 { i += 1 }
            i += 1
        }
        return out
    }
}
