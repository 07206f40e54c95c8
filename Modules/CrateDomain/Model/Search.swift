/// Search result groups, in the order results are shown: artist → album → track → playlist → lyrics.
public enum SearchGroup: String, Sendable, Codable, CaseIterable {
    case artists, albums, tracks, playlists, lyrics, stations
}

/// Where search looks: the library's own index, or the catalogs of sources that offer one.
public enum SearchScope: String, Sendable, Codable, CaseIterable {
    case local, external
}

/// A track whose lyrics matched, with the matching passage.
public struct LyricsHit: Sendable, Hashable, Codable {
    public var track: Track
    /// The matching lines, match marked with [brackets].
    public var snippet: String

    public init(track: Track, snippet: String) {
        self.track = track
        self.snippet = snippet
    }
}

/// An item of an external catalog: not in the library, so it has the source's own string id.
public struct CatalogHit: Sendable, Hashable, Codable {
    public var source: String
    public var id: String
    public var title: String
    public var subtitle: String?
    public var artworkURL: String?

    public init(source: String, id: String, title: String, subtitle: String? = nil, artworkURL: String? = nil) {
        self.source = source
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.artworkURL = artworkURL
    }
}

/// One group of a search: how many match in all, and one page of them. Exactly one item list is set,
/// the one of the group's kind (`catalog` for external results).
public struct SearchGroupResult: Sendable, Hashable, Codable {
    public var group: SearchGroup
    public var total: Int
    public var offset: Int
    public var artists: [Artist]?
    public var albums: [Album]?
    public var tracks: [Track]?
    public var playlists: [Playlist]?
    public var lyrics: [LyricsHit]?
    public var stations: [Station]?
    public var catalog: [CatalogHit]?

    public init(group: SearchGroup, total: Int, offset: Int) {
        self.group = group
        self.total = total
        self.offset = offset
    }

    public var count: Int {
        artists?.count ?? albums?.count ?? tracks?.count ?? playlists?.count ?? lyrics?.count ?? stations?.count
            ?? catalog?.count ?? 0
    }
}

/// A whole search: its groups in display order (empty groups left out).
public struct SearchResults: Sendable, Hashable, Codable {
    public var query: String
    public var scope: SearchScope
    public var groups: [SearchGroupResult]

    public init(query: String, scope: SearchScope, groups: [SearchGroupResult]) {
        self.query = query
        self.scope = scope
        self.groups = groups
    }

    public func group(_ g: SearchGroup) -> SearchGroupResult? { groups.first { $0.group == g } }
}

/// A source that can search its own catalog (external search scope).
public protocol CatalogSearchingSource: SourcePlugin {
    func searchCatalog(_ term: String, limit: Int) async throws -> [SearchGroupResult]
}
