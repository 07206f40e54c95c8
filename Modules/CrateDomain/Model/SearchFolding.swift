import Foundation

/// "Ignore case and diacritics" for letters Unicode does not decompose: ø is not o + a mark, so case and
/// diacritic folding (and SQLite's `remove_diacritics`) leave it alone, and `soren` would not find "Søren".
/// The index, the query and every in-memory match fold these the same way; the rest is the usual folding.
public enum SearchFolding {
    /// Letter → its plain spelling, both cases (the upper case keeps a capital so display-like text stays readable).
    /// (Sixteen: the index spells them in SQL, one nested `replace` each, and SQLite's parser allows about 25
    /// levels inside a trigger, compact forms included.)
    public static let letters: [(String, String)] = [
        ("ø", "o"), ("Ø", "O"), ("ł", "l"), ("Ł", "L"), ("ı", "i"), ("ß", "ss"), ("đ", "d"), ("Đ", "D"),
        ("ð", "d"), ("Ð", "D"), ("æ", "ae"), ("Æ", "AE"), ("œ", "oe"), ("Œ", "OE"), ("þ", "th"), ("Þ", "TH"),
    ]

    /// `text` with those letters spelled plainly (case and other diacritics untouched).
    public static func plain(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0xC6 }) else { return text }
        var out = text
        for (letter, plain) in letters where out.contains(letter) { out = out.replacingOccurrences(of: letter, with: plain) }
        return out
    }

    /// Case, diacritics and those letters folded: what two strings are compared as.
    public static func fold(_ text: String) -> String {
        plain(text).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The same as `plain`, as SQL around `expr`, for the index's triggers (plain SQL, so any writer keeps it).
    public static func sql(_ expr: String) -> String {
        letters.reduce(expr) { inner, pair in "replace(\(inner), '\(pair.0)', '\(pair.1)')" }
    }
}
