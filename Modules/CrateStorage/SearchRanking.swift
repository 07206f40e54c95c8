import CrateDomain
import Synchronization

/// bm25 computed in Swift over a group's matched rows, for queries of several terms.
///
/// Why: FTS5's bm25 first counts, for each term, every row of the whole index holding it (the term's idf), so a
/// 3-word query whose first word is `th` read the 60,000 rows of `th*` to rank 473 tracks: 4–5 ms of the p99, whatever
/// the number of matches (Benchmarks/README.md, search). Here only the matched rows are read (at most
/// `LibraryStore.rankLimit`), by rowid, and scored with bm25's own formula (k1 1.2, b 0.75, every column weighing 1)
/// over each row's tokens, every term weighted alike instead of by its idf: every row in the group holds every term, so
/// the idf only tilts which term's repeats count more, and rows whose terms each occur once (nearly all) come in the
/// same order as bm25's: shorter rows first, ties by rowid. The average row length is the matches' own, not the
/// whole index's. A query of one term is still ranked by FTS5 (`ORDER BY rank`): there the idf pass reads no more
/// rows than the matches, and the order is the same.
struct SearchRanking: Sendable {
    /// One FTS5 phrase of the query: folded tokens, all whole words but the last, which is a prefix; limited to one
    /// column (`artist:`…) when `column` is set. A typed word with punctuation inside is two phrases, as in
    /// `SearchExpression.term`: its compact form and its parts in a row.
    struct Phrase: Sendable {
        var tokens: [[UInt8]]
        var column: Int?
    }

    var phrases: [Phrase]
    /// How many words the query has (words and field words): FTS5 ranks queries of one (see above).
    var terms: Int

    static let k1 = 1.2
    static let b = 0.75

    /// Phrases for `words` (any column) and field words limited to a column index.
    init(words: [String], fields: [(column: Int, words: [String])] = []) {
        let all = words.map { ($0, Int?.none) } + fields.flatMap { field in field.words.map { ($0, Optional(field.column)) } }
        var phrases: [Phrase] = [], terms = 0
        for (word, column) in all {
            let runs = SearchExpression.runs(word).map { run in
                Tokens.fold(Array(run.utf8)).compactMap { $0 == 0x20 ? nil : $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            }
            guard !runs.isEmpty else { continue }
            terms += 1
            phrases.append(Phrase(tokens: runs.count == 1 ? runs : [Array(runs.joined())], column: column))
            if runs.count > 1 { phrases.append(Phrase(tokens: runs, column: column)) }
        }
        self.phrases = phrases
        self.terms = terms
    }

    /// Scores rows as they are read, then orders them.
    struct Ranker {
        let ranking: SearchRanking
        private var tokens = Tokens()
        private var rows: [(id: Int64, length: Int)] = []
        /// Each row's instances of each phrase, row after row.
        private var hits: [Double] = []

        init(_ ranking: SearchRanking, capacity: Int) {
            self.ranking = ranking
            rows.reserveCapacity(capacity)
            hits.reserveCapacity(capacity * ranking.phrases.count)
        }

        /// One column of the current row: its index among the ranked columns and its UTF-8 text (read during the call).
        mutating func column(_ index: Int, _ text: UnsafeRawBufferPointer) {
            tokens.add(text, column: index)
        }

        /// The current row is complete.
        mutating func end(id: Int64) {
            rows.append((id, tokens.count))
            for phrase in ranking.phrases { hits.append(Double(tokens.hits(phrase))) }
            tokens.clear()
        }

        /// The ids, best first.
        func ordered() -> [Int64] {
            let n = ranking.phrases.count
            let average = Double(max(1, rows.reduce(0) { $0 + $1.length })) / Double(max(1, rows.count))
            var scored: [(id: Int64, score: Double)] = []
            scored.reserveCapacity(rows.count)
            for (i, row) in rows.enumerated() {
                let norm = SearchRanking.k1 * (1 - SearchRanking.b + SearchRanking.b * Double(row.length) / average)
                var score = 0.0
                for f in hits[(i * n)..<(i * n + n)] { score += f * (SearchRanking.k1 + 1) / (f + norm) }
                scored.append((row.id, score))
            }
            scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
            return scored.map(\.id)
        }
    }

    /// One row's tokens as `unicode61 remove_diacritics 2` makes them (runs of letters and digits, case and diacritics
    /// folded), kept as ranges of one reused buffer: a thousand rows are tokenized per query.
    struct Tokens {
        private var bytes: [UInt8] = []
        /// (start, end, column) of each token in `bytes`.
        private var spans: [(start: Int, end: Int, column: Int)] = []
        var count: Int { spans.count }

        mutating func clear() {
            bytes.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
        }

        mutating func add(_ text: UnsafeRawBufferPointer, column: Int) {
            if !scan(text, column: column) {
                // Rare (names with accents or other scripts): fold, then the same scan.
                Tokens.fold(Array(text)).withUnsafeBytes { _ = scan($0, column: column, ascii: false) }
            }
        }

        /// Appends `text`'s tokens, ASCII letters lowered; false, with nothing appended, when `ascii` and `text` is not.
        /// Every byte of a non-ASCII letter is a word byte (`fold` left only letters and digits above 0x7F).
        private mutating func scan(_ text: UnsafeRawBufferPointer, column: Int, ascii: Bool = true) -> Bool {
            let base = bytes.count, spanBase = spans.count
            bytes.append(contentsOf: text)
            var found = spans
            spans = []
            let complete = bytes.withUnsafeMutableBufferPointer { buffer in
                var start = -1
                for i in base..<buffer.count {
                    var byte = buffer[i]
                    if byte >= 0x80 {
                        if ascii { return false }
                    } else if byte >= 0x41 && byte <= 0x5A {
                        byte |= 0x20
                        buffer[i] = byte
                    }
                    if byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) {
                        if start < 0 { start = i }
                    } else if start >= 0 {
                        found.append((start, i, column))
                        start = -1
                    }
                }
                if start >= 0 { found.append((start, buffer.count, column)) }
                return true
            }
            if !complete {
                found.removeSubrange(spanBase...)
                bytes.removeSubrange(base...)
            }
            spans = found
            return complete
        }

        /// Each non-ASCII scalar as the tokenizer reads it: its folded spelling (a letter or digit: `SearchFolding`),
        /// nothing (a combining mark: the diacritic removed), or a space (a separator). Kept across searches because
        /// Foundation's folding costs tens of microseconds a call and a library uses a few hundred such scalars.
        private static let folds = Mutex<[UInt32: [UInt8]]>([:])

        /// UTF-8 `text` with ASCII as it is and every other scalar as `folds` spells it.
        static func fold(_ text: [UInt8]) -> [UInt8] {
            folds.withLock { folds in
                var out: [UInt8] = []
                out.reserveCapacity(text.count)
                for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
                    if scalar.isASCII { out.append(UInt8(scalar.value)); continue }
                    if let known = folds[scalar.value] { out += known; continue }
                    let properties = scalar.properties
                    let spelled: [UInt8] = properties.generalCategory == .nonspacingMark ? []
                        : properties.isAlphabetic || properties.numericType != nil ? Array(SearchFolding.fold(String(scalar)).utf8)
                        : [0x20]
                    folds[scalar.value] = spelled
                    out += spelled
                }
                return out
            }
        }

        /// How many times the row holds `phrase` (in its column, when it has one).
        func hits(_ phrase: Phrase) -> Int {
            guard let last = phrase.tokens.last, phrase.tokens.count <= spans.count else { return 0 }
            var count = 0
            for i in 0...(spans.count - phrase.tokens.count) {
                let column = spans[i].column
                guard phrase.column.map({ $0 == column }) ?? true, spans[i + phrase.tokens.count - 1].column == column,
                      starts(spans[i + phrase.tokens.count - 1], with: last) else { continue }
                var whole = true
                for k in 0..<(phrase.tokens.count - 1) where !equal(spans[i + k], phrase.tokens[k]) { whole = false; break }
                if whole { count += 1 }
            }
            return count
        }

        private func starts(_ span: (start: Int, end: Int, column: Int), with word: [UInt8]) -> Bool {
            guard span.end - span.start >= word.count else { return false }
            for (k, byte) in word.enumerated() where bytes[span.start + k] != byte { return false }
            return true
        }

        private func equal(_ span: (start: Int, end: Int, column: Int), _ word: [UInt8]) -> Bool {
            span.end - span.start == word.count && starts(span, with: word)
        }
    }
}
