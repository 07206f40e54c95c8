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

/// A playlist as the Subsonic API shows it: one of Crate's own (the owner's, `crate` home) or another account's.
public struct SharedPlaylist: Sendable, Hashable, Codable {
    public enum Home: String, Sendable, Hashable, Codable {
        /// Crate's playlists table: the owner's, the ones the web page and MPD show.
        case crate
        /// Another account's own.
        case account
    }

    public var id: Int64
    public var home: Home
    public var name: String
    public var comment: String?
    /// The account it belongs to.
    public var owner: String
    public var isPublic: Bool
    public var trackCount: Int
    public var duration: Double
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: Int64, home: Home, name: String, comment: String?, owner: String, isPublic: Bool, trackCount: Int,
                duration: Double, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.home = home
        self.name = name
        self.comment = comment
        self.owner = owner
        self.isPublic = isPublic
        self.trackCount = trackCount
        self.duration = duration
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where an account's app left off, for another device to pick up (Subsonic's play queue; not crated's own queue).
public struct PlayQueue: Sendable, Hashable, Codable {
    public var trackIDs: [Int64]
    public var current: Int64?
    public var positionMs: Int
    public var changedAt: Date
    /// The app that saved it (its `c`).
    public var changedBy: String

    public init(trackIDs: [Int64], current: Int64?, positionMs: Int, changedAt: Date, changedBy: String) {
        self.trackIDs = trackIDs
        self.current = current
        self.positionMs = positionMs
        self.changedAt = changedAt
        self.changedBy = changedBy
    }
}
