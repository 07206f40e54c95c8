import Foundation

/// Sort orders for the library's lists, as the player specification lists them.
public enum SortDirection: String, Sendable, Codable, CaseIterable {
    case ascending = "asc", descending = "desc"
}

public enum AlbumSort: String, Sendable, Codable, CaseIterable {
    /// `artist` orders by album artist, ignoring leading articles and using sort tags when present.
    case title, added, artist, year
}

public enum TrackSort: String, Sendable, Codable, CaseIterable {
    case title, added, artist
}

public enum PlaylistSort: String, Sendable, Codable, CaseIterable {
    case title, created, lastPlayed = "last_played", updated
}

public enum PlaylistTrackSort: String, Sendable, Codable, CaseIterable {
    /// The playlist's own order (the default; the user reorders it).
    case manual, title, artist, album, year, added
}

/// A list's sort: a key, a direction, and whether favorites come first.
public struct ListSort<Key: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var key: Key
    public var order: SortDirection
    public var favoritesFirst: Bool

    public init(_ key: Key, _ order: SortDirection = .ascending, favoritesFirst: Bool = false) {
        self.key = key
        self.order = order
        self.favoritesFirst = favoritesFirst
    }
}

/// The key artists sort by: the sort tag when there is one, else the name without a leading
/// "The", "A" or "An"; folded for case and accents.
public enum SortName {
    static let articles = ["the ", "a ", "an "]

    public static func key(_ name: String, sortTag: String? = nil) -> String {
        if let tag = sortTag?.trimming(\.isBlank), !tag.isEmpty { return fold(tag) }
        let folded = fold(name.trimming(\.isBlank))
        for article in articles where folded.hasPrefix(article) {
            // "The  Cure" (two spaces) sorts as "cure" too.
            let rest = folded.dropFirst(article.count).trimming(\.isBlank)
            if !rest.isEmpty { return rest }
        }
        return folded
    }

    static func fold(_ s: String) -> String { SearchFolding.fold(s) }
}
