public import Foundation

/// Albums, playlists and stations the user played from, newest first (at most 50 together).
public struct RecentItem: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable { case album, playlist, station }
    public var kind: Kind
    public var playedAt: Date
    public var album: Album?
    public var playlist: Playlist?
    public var station: Station?

    public init(kind: Kind, playedAt: Date, album: Album? = nil, playlist: Playlist? = nil, station: Station? = nil) {
        self.kind = kind
        self.playedAt = playedAt
        self.album = album
        self.playlist = playlist
        self.station = station
    }
}

public struct TopArtist: Sendable, Hashable, Codable {
    public var artist: Artist
    /// Plays in the window (0 when the list fell back to recent artists).
    public var plays: Int
    public var lastPlayedAt: Date?

    public init(artist: Artist, plays: Int, lastPlayedAt: Date?) {
        self.artist = artist
        self.plays = plays
        self.lastPlayedAt = lastPlayedAt
    }
}

/// The home screen: what was played lately and by whom.
public struct Home: Sendable, Hashable, Codable {
    public static let recentItemLimit = 50
    public static let topArtistDays = 30
    public static let topArtistLimit = 10

    public var recentItems: [RecentItem]
    public var recentPlays: [HistoryEntry]
    public var topArtists: [TopArtist]
    /// `top` (plays in the last 30 days) or `recent` (the fallback: artists of recent plays).
    public var topArtistsBasis: String

    public init(recentItems: [RecentItem], recentPlays: [HistoryEntry], topArtists: [TopArtist], topArtistsBasis: String) {
        self.recentItems = recentItems
        self.recentPlays = recentPlays
        self.topArtists = topArtists
        self.topArtistsBasis = topArtistsBasis
    }
}
