/// What can be a favorite. Albums can also be disliked; like and dislike of one album exclude each other.
public enum FavoriteKind: String, Sendable, Codable, CaseIterable {
    case track, album, artist, playlist
}

/// The user's opinion of an item: a favorite (for albums, a like) or, for albums only, a dislike.
public enum Opinion: String, Sendable, Codable {
    case favorite, dislike
}

/// Everything marked as a favorite, newest first within each kind, and the disliked albums.
public struct FavoritesList: Sendable, Hashable, Codable {
    public var tracks: [Track]
    public var albums: [Album]
    public var artists: [Artist]
    public var playlists: [Playlist]
    public var dislikedAlbums: [Album]

    public init(tracks: [Track], albums: [Album], artists: [Artist], playlists: [Playlist], dislikedAlbums: [Album]) {
        self.tracks = tracks
        self.albums = albums
        self.artists = artists
        self.playlists = playlists
        self.dislikedAlbums = dislikedAlbums
    }
}
