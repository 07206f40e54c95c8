/// An artist as the library lists it (album artists for browsing, track artists for search).
public struct Artist: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var name: String
    /// The key the artist sorts by (see `SortName`).
    public var sortKey: String
    /// Albums with this album artist.
    public var albumCount: Int
    /// Tracks by this artist.
    public var trackCount: Int
    public var favorite: Bool

    public init(id: Int64, name: String, sortKey: String, albumCount: Int, trackCount: Int, favorite: Bool) {
        self.id = id
        self.name = name
        self.sortKey = sortKey
        self.albumCount = albumCount
        self.trackCount = trackCount
        self.favorite = favorite
    }
}
