import CrateDomain

/// Turns typed words into FTS5 MATCH expressions: every word is a prefix ("jud" finds "Jude"), and a
/// word with punctuation inside matches its compact form or its parts in a row ("r.e.m." finds
/// "R.E.M." as "rem" or as "r e m"). Only letters and digits reach the expression, so nothing a user
/// types can break its syntax.
enum SearchExpression {
    /// The expression for one word, or nil when it has no letters or digits.
    static func term(_ word: String) -> String? {
        let parts = runs(word)
        guard let first = parts.first else { return nil }
        if parts.count == 1 { return "\"\(first)\"*" }
        return "(\"\(parts.joined())\"* OR \"\(parts.joined(separator: " "))\"*)"
    }

    /// The letter-and-digit runs of `word`, as the expression and the ranking (`SearchRanking`) both read it.
    static func runs(_ word: String) -> [String] {
        // The index spells ø, ł, ß … plainly (SearchFolding); so does the query.
        SearchFolding.plain(word).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// All `words` (AND), each limited to `column` when given.
    static func all(_ words: [String], column: String? = nil) -> String? {
        let terms = words.compactMap(term).map { t in column.map { "\($0) : \(t)" } ?? t }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// Any of `words` (OR): for exclusions.
    static func any(_ words: [String]) -> String? {
        let terms = words.compactMap(term)
        return terms.isEmpty ? nil : terms.joined(separator: " OR ")
    }
}
