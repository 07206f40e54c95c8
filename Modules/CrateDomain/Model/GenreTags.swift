import Foundation

/// Where a genre tag lands in the taxonomy: a super-genre and, when the tag names one, a subcategory.
public struct GenrePlace: Sendable, Hashable {
    public var superGenre: SuperGenre
    public var subcategory: GenreSubcategory?

    public init(superGenre: SuperGenre, subcategory: GenreSubcategory?) {
        self.superGenre = superGenre
        self.subcategory = subcategory
    }

    /// Whether an album with this place belongs to a selection: same super-genre, and when subcategories are
    /// picked, one of them.
    public func belongs(to selection: GenreSelection) -> Bool {
        guard superGenre.id == selection.superGenre.id else { return false }
        guard !selection.subcategories.isEmpty else { return true }
        return subcategory.map { sub in selection.subcategories.contains { $0.id == sub.id } } ?? false
    }
}

extension GenreTaxonomy {
    /// The separators of multi-genre tags ("Rock; Jazz", "Rock/Pop", "Folk, Country").
    static let tagSeparators = "/,;|"

    /// Every place a genre text lands (a whole tag that is a name wins over its parts: "R&B/Soul"), and the
    /// parts that land nowhere, for the diagnostics. Places keep the tag's order, without repeats.
    public static func classifyAll(_ text: String) -> (places: [GenrePlace], unmapped: [String]) {
        let whole = text.trimming(\.isBlank)
        guard !whole.isEmpty else { return ([], []) }
        if let hit = classifyExact(whole) { return ([hit], []) }
        var places: [GenrePlace] = []
        var unmapped: [String] = []
        for part in whole.split(whereSeparator: { tagSeparators.contains($0) }) {
            let name = part.trimming(\.isBlank)
            guard !name.isEmpty else { continue }
            if let hit = classifyExact(name) {
                if !places.contains(hit) { places.append(hit) }
            } else if !unmapped.contains(name) {
                unmapped.append(name)
            }
        }
        return (places, unmapped)
    }

    /// Whether any of `genres` (tags or catalog genre names) lands in the selection.
    public static func matches(_ genres: [String], _ selection: GenreSelection) -> Bool {
        genres.contains { classifyAll($0).places.contains { $0.belongs(to: selection) } }
    }

    /// One name, matched whole against names and aliases.
    private static func classifyExact(_ name: String) -> GenrePlace? {
        tagIndex[matchKey(name)].map { hit in
            let place = resolve(hit)
            return GenrePlace(superGenre: place.superGenre, subcategory: place.subcategory)
        }
    }
}
