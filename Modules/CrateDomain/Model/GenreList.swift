import Foundation

/// A genre tag with several values, kept as one text joined by "; " (the form `GenreTaxonomy.classifyAll` and
/// genre search read). Files carry several values as repeated Vorbis `GENRE` comments, zero-separated ID3v2.4
/// `TCON` strings or ID3v1 references "(4)(9)"; an album holds every value of its tracks.
public enum GenreList {
    static let separator = "; "

    /// `existing` with the values of `added` that it lacks (case-insensitively), in order of first sight.
    public static func adding(_ added: String?, to existing: String?) -> String? {
        guard let added, !added.isEmpty else { return existing }
        guard let existing, !existing.isEmpty else { return added }
        var values = values(of: existing)
        var seen = Set(values.map { $0.lowercased() })
        for value in Self.values(of: added) where seen.insert(value.lowercased()).inserted {
            values.append(value)
        }
        return values.joined(separator: separator)
    }

    /// The values of a stored genre text: split on ";" only, since "/" and "," also occur inside single names
    /// ("R&B/Soul", "Folk, World, & Country").
    public static func values(of text: String) -> [String] {
        text.split(separator: ";").map { $0.trimming(\.isBlank) }.filter { !$0.isEmpty }
    }
}
