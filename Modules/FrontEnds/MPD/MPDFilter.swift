import Foundation

/// Which songs a `find`, `search`, `list` or `count` means: MPD's filter expressions (`(artist == "X")`,
/// `(album contains "y")`, `(!(…))`, `((…) AND (…))`, `(base "folder")`, `(file == "uri")`) or the older
/// `TAG VALUE …` pairs. `find` compares exactly; `search` ignores case and matches parts.
/// (Parsing is here; matching songs is in MPDFilter+Matching.swift, so Fuzz/MPDFilter builds the parser alone.)
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
            var parser = ExpressionParser(text: Array(first.unicodeScalars))
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

    /// MPD's expression grammar: `(TAG OP 'VALUE')`, `(!EXPR)`, `(EXPR AND EXPR …)`, `(base 'VALUE')`.
    private struct ExpressionParser {
        /// Nesting deeper than this is refused: each level is a call, and a client's line must not exhaust the stack.
        static let maxDepth = 64
        /// Scalars, not Characters: a combining mark after a quote or parenthesis must not hide it.
        let text: [Unicode.Scalar]
        var at = 0
        var depth = 0

        var atEnd: Bool { at >= text.count }

        mutating func skipBlanks() { while at < text.count, text[at] == " " || text[at] == "\t" { at += 1 } }

        mutating func expect(_ c: Unicode.Scalar) throws(MPDError) {
            skipBlanks()
            guard at < text.count, text[at] == c else { throw MPDError(.argument, "'\(c)' expected") }
            at += 1
        }

        mutating func expression() throws(MPDError) -> MPDFilter {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw MPDError(.argument, "Expression nested too deeply") }
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
            while at < text.count, !" \t()'\"".unicodeScalars.contains(text[at]) {
                out.unicodeScalars.append(text[at])
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
                out.unicodeScalars.append(text[at])
                at += 1
            }
            guard at < text.count else { throw MPDError(.argument, "Closing quote not found") }
            at += 1
            return out
        }
    }
}
