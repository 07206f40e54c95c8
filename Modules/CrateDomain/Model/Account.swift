public import Foundation

/// A person of the household, signing in from a Subsonic app. The owner is the one whose stars, plays and playlists
/// are Crate's own: the web page, the CLI, MPD and MPRIS act as the owner.
public struct Account: Sendable, Hashable, Codable {
    public var id: Int64
    public var name: String
    public var isAdmin: Bool
    public var isOwner: Bool
    /// May drive crated's own player from an app (Subsonic's jukebox).
    public var jukebox: Bool
    /// An API key exists (it is shown once, when made; only its hash is kept).
    public var hasAPIKey: Bool
    public var createdAt: Date

    public init(id: Int64, name: String, isAdmin: Bool, isOwner: Bool, jukebox: Bool, hasAPIKey: Bool, createdAt: Date) {
        self.id = id
        self.name = name
        self.isAdmin = isAdmin
        self.isOwner = isOwner
        self.jukebox = jukebox
        self.hasAPIKey = hasAPIKey
        self.createdAt = createdAt
    }
}

/// What one person starred, with when (keys `track:ID`, `album:ID`, `artist:ID` in `dates`).
public struct Starred: Sendable, Hashable, Codable {
    public var artists: [Artist]
    public var albums: [Album]
    public var tracks: [Track]
    public var dates: [String: Date]

    public init(artists: [Artist] = [], albums: [Album] = [], tracks: [Track] = [], dates: [String: Date] = [:]) {
        self.artists = artists
        self.albums = albums
        self.tracks = tracks
        self.dates = dates
    }

    /// The key of an item in `dates` and in ratings: `album:12`.
    public static func key(_ kind: FavoriteKind, _ id: Int64) -> String { "\(kind.rawValue):\(id)" }
}
