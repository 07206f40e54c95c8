import CrateDomain
import Foundation
import Glibc

/// Matching songs against a parsed filter (MPDFilter.swift parses).
extension MPDFilter {
    /// Whether `song` is one of the songs meant; `caseless` compares ignoring case (`search`).
    func matches(_ song: MPDDatabase.Song, caseless: Bool) -> Bool {
        switch self {
        case .all(let parts): return parts.allSatisfy { $0.matches(song, caseless: caseless) }
        case .not(let inner): return !inner.matches(song, caseless: caseless)
        case .base(let folder):
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            return folder.isEmpty || song.uri.hasPrefix(prefix)
        case let .compare(tag, op, value, foldedValue):
            // Caseless: the song's folded values against the value folded at parse time.
            let want = caseless ? foldedValue : value
            let values = tag == "any" ? Self.tags.subtracting(["any", "file"]).flatMap { Self.values($0, of: song, folded: caseless) }
                                      : Self.values(tag, of: song, folded: caseless)
            let hit = values.contains { Self.compare($0, op == .notEquals ? .equals : op, want) }
            return op == .notEquals ? !hit : hit
        }
    }

    private static func compare(_ have: String, _ op: Operator, _ want: String) -> Bool {
        switch op {
        case .equals, .notEquals: return have == want
        // Byte by byte (Foundation's `contains` goes through NSString); both sides are folded alike.
        case .contains:
            guard !want.isEmpty else { return true }
            var have = have, want = want
            return have.withUTF8 { h in want.withUTF8 { w in Self.bytes(h, contain: w) } }
        case .startsWith: return have.hasPrefix(want)
        }
    }

    /// Whether `needle` (not empty) occurs in `haystack`: first byte, then memcmp.
    private static func bytes(_ haystack: UnsafeBufferPointer<UInt8>, contain needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard needle.count <= haystack.count, let h = haystack.baseAddress, let n = needle.baseAddress else { return false }
        let first = n.pointee
        for i in 0...(haystack.count - needle.count) where h[i] == first {
            if memcmp(h + i, n, needle.count) == 0 { return true }
        }
        return false
    }

    /// A song's values for `tag` as MPD shows them (album artist falls back to the artist), or in lower case.
    static func values(_ tag: String, of song: MPDDatabase.Song, folded: Bool = false) -> [String] {
        // Each field is read where it lies: binding `song.track` to a constant would copy the whole Track, retaining
        // and releasing its every string, for every song a filter looks at.
        let value: String? = switch tag {
        case "artist": folded ? song.folded.artist : song.track.artist
        case "albumartist":
            song.track.albumArtist.isEmpty ? (folded ? song.folded.artist : song.track.artist)
                                           : (folded ? song.folded.albumArtist : song.track.albumArtist)
        case "album": folded ? song.folded.album : song.track.album
        case "title": folded ? song.folded.title : song.track.title
        case "track": song.track.trackNumber.map(String.init)
        case "disc": song.track.discNumber.map(String.init)
        case "date": song.track.date.map { folded ? $0.lowercased() : $0 }
        case "genre": folded ? song.folded.genre : song.track.genre
        case "file": folded ? song.folded.uri : song.uri
        default: nil
        }
        guard let value, !value.isEmpty else { return [] }
        // Several genres are kept joined by "; " (Docs/LIBRARY.md): MPD shows one line per value.
        return tag == "genre" ? value.components(separatedBy: "; ") : [value]
    }
}
