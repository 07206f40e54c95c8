public import Foundation

/// A user playlist: tracks in the user's own order, duplicates allowed.
public struct Playlist: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var name: String
    public var trackCount: Int
    public var duration: Double
    public var createdAt: Date
    public var updatedAt: Date
    /// Set only when playback starts from this playlist.
    public var lastPlayedAt: Date?
    public var favorite: Bool

    public init(id: Int64, name: String, trackCount: Int, duration: Double, createdAt: Date, updatedAt: Date,
                lastPlayedAt: Date?, favorite: Bool) {
        self.id = id
        self.name = name
        self.trackCount = trackCount
        self.duration = duration
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastPlayedAt = lastPlayedAt
        self.favorite = favorite
    }

    /// The name of the pseudo-playlist of favorite tracks.
    public static let favoritesName = "Favorites"
}

/// One place in a playlist.
public struct PlaylistEntry: Sendable, Hashable, Codable {
    /// 1-based place in the playlist's manual order.
    public var position: Int
    public var track: Track
    public var addedAt: Date

    public init(position: Int, track: Track, addedAt: Date) {
        self.position = position
        self.track = track
        self.addedAt = addedAt
    }
}
