import Foundation

/// "Did you mean …": the known name nearest to a mistyped one, for commands and config keys alike.
public enum NearestName {
    /// The candidate within `maxEdits` edits of `word` (case-insensitive), closest first, then alphabetical.
    public static func nearest(to word: String, among candidates: [String], maxEdits: Int = 2) -> String? {
        let lowered = word.lowercased()
        return candidates.map { ($0, editDistance(lowered, $0.lowercased())) }
            .filter { $0.1 <= maxEdits }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var row = [i + 1]
            for (j, y) in b.enumerated() { row.append(min(previous[j + 1] + 1, row[j] + 1, previous[j] + (x == y ? 0 : 1))) }
            previous = row
        }
        return previous[b.count]
    }
}
