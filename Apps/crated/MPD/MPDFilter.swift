import CrateDomain
import Foundation
import Glibc

/// Which songs a `find`, `search`, `list` or `count` means: MPD's filter expressions (`(artist == "X")`,
/// `(album contains "y")`, `(!(…))`, `((…) AND (…))`, `(base "folder")`, `(file == "uri")`) or the older
/// `TAG VALUE …` pairs. `find` compares exactly; `search` ignores case and matches parts.
indirect enum MPDFilter: Sendable {
    /// `folded`: the value in lower case, for caseless matching.
    case compare(tag: String, op: Operator, value: String, folded: String)
    case base(String)
    case not(MPDFilter)
    case all([MPDFilter])

    enum Operator: Sendable {
        case equals, notEquals, contains, startsWith
    }

    /// The tags a filter, `list` or `sort` may name (lower case), with `any` and `file` besides.
    static let tags: Set<String> = ["artist", "albumartist", "album", "title", "track", "disc", "date", "genre", "any", "file"]

    /// Parses the arguments after the command: one expression in parentheses, or tag/value pairs. `caseless`
    /// (search) makes the old syntax compare by parts, ignoring case.
    static func parse(_ args: [String], caseless: Bool) throws(MPDError) -> MPDFilter {
        if let first = args.first, first.hasPrefix("(") {
            guard args.count == 1 else { throw MPDError(.argument, "Only one filter expression is allowed") }
            var parser = ExpressionParser(text: Array(first))
            let filter = try parser.expression()
            parser.skipBlanks()
            guard parser.atEnd else { throw MPDError(.argument, "Unparsed garbage after expression") }
            return filter
        }
        guard args.count.isMultiple(of: 2), !args.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
        var parts: [MPDFilter] = []
        for i in stride(from: 0, to: args.count, by: 2) {
            let tag = args[i].lowercased()
            if tag == "base" { parts.append(.base(args[i + 1])); continue }
            guard tags.contains(tag) else { throw MPDError(.argument, "Unknown filter type: \(args[i])") }
            parts.append(.compare(tag: tag, op: caseless ? .contains : .equals, value: args[i + 1], folded: args[i + 1].lowercased()))
        }
        return .all(parts)
    }

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

    /// MPD's expression grammar: `(TAG OP 'VALUE')`, `(!EXPR)`, `(EXPR AND EXPR …)`, `(base 'VALUE')`.
    private struct ExpressionParser {
        let text: [Character]
        var at = 0

        var atEnd: Bool { at >= text.count }

        mutating func skipBlanks() { while at < text.count, text[at] == " " || text[at] == "\t" { at += 1 } }

        mutating func expect(_ c: Character) throws(MPDError) {
            skipBlanks()
            guard at < text.count, text[at] == c else { throw MPDError(.argument, "'\(c)' expected") }
            at += 1
        }

        mutating func expression() throws(MPDError) -> MPDFilter {
            try expect("(")
            skipBlanks()
            guard at < text.count else { throw MPDError(.argument, "Unexpected end of expression") }
            if text[at] == "!" {
                at += 1
                let inner = try expression()
                try expect(")")
                return .not(inner)
            }
            if text[at] == "(" {
                var parts = [try expression()]
                while true {
                    skipBlanks()
                    if at < text.count, text[at] == ")" { at += 1; break }
                    let word = self.word()
                    guard word == "AND" else { throw MPDError(.argument, "'AND' expected") }
                    parts.append(try expression())
                }
                return parts.count == 1 ? parts[0] : .all(parts)
            }
            let tag = word().lowercased()
            if tag == "base" {
                let value = try quoted()
                try expect(")")
                return .base(value)
            }
            guard MPDFilter.tags.contains(tag) else { throw MPDError(.argument, "Unknown filter type: \(tag)") }
            let op: Operator
            switch word() {
            case "==": op = .equals
            case "!=": op = .notEquals
            case "contains": op = .contains
            case "starts_with": op = .startsWith
            case let other: throw MPDError(.argument, "Unknown filter operator: \(other)")
            }
            let value = try quoted()
            try expect(")")
            return .compare(tag: tag, op: op, value: value, folded: value.lowercased())
        }

        mutating func word() -> String {
            skipBlanks()
            var out = ""
            while at < text.count, !" \t()'\"".contains(text[at]) {
                out.append(text[at])
                at += 1
            }
            return out
        }

        /// A value in single or double quotes; a backslash takes the next character literally.
        mutating func quoted() throws(MPDError) -> String {
            skipBlanks()
            guard at < text.count, text[at] == "\"" || text[at] == "'" else { throw MPDError(.argument, "Quoted string expected") }
            let quote = text[at]
            at += 1
            var out = ""
            while at < text.count, text[at] != quote {
                if text[at] == "\\", at + 1 < text.count { at += 1 }
                out.append(text[at])
                at += 1
            }
            guard at < text.count else { throw MPDError(.argument, "Closing quote not found") }
            at += 1
            return out
        }
    }
}
