/// How much the library holds, as health checks and status displays show it.
public struct LibraryCounts: Sendable, Hashable, Codable {
    public var albums: Int
    public var tracks: Int
    public var artists: Int
    public var scanFailures: Int

    public init(albums: Int, tracks: Int, artists: Int, scanFailures: Int) {
        self.albums = albums
        self.tracks = tracks
        self.artists = artists
        self.scanFailures = scanFailures
    }
}

/// Counts for `crate library status` and `GET /api/v1/library/status`.
public struct LibraryDiagnostics: Sendable, Hashable, Codable {
    public var tracks: Int
    public var albums: Int
    public var artists: Int
    public var queueEntries: Int
    public var historyEntries: Int
    public var playbackPositions: Int
    public var playerStateSaved: Bool
    /// Missing tracks by reason (not_found, permission, invalid_uri).
    public var missing: [String: Int]
    public var importRecords: Int
    public var importFailures: Int
    /// Library files by import mode.
    public var filesByMode: [String: Int]
    public var artwork: Int
    public var tracksWithoutArtwork: Int
    public var overrides: Int
    public var libraryRoots: Int
    public var playlists: Int
    public var playlistEntries: Int
    public var favorites: Int
    public var dislikes: Int
    public var lyrics: Int
    public var recentItems: Int
    /// Finished plays counted (the log behind play counts and top artists).
    public var plays: Int

    public init(tracks: Int, albums: Int, artists: Int, queueEntries: Int, historyEntries: Int, playbackPositions: Int,
                playerStateSaved: Bool, missing: [String: Int], importRecords: Int, importFailures: Int, filesByMode:
                [String: Int], artwork: Int, tracksWithoutArtwork: Int, overrides: Int, libraryRoots: Int, playlists:
                Int, playlistEntries: Int, favorites: Int, dislikes: Int, lyrics: Int, recentItems: Int, plays: Int) {
        self.tracks = tracks
        self.albums = albums
        self.artists = artists
        self.queueEntries = queueEntries
        self.historyEntries = historyEntries
        self.playbackPositions = playbackPositions
        self.playerStateSaved = playerStateSaved
        self.missing = missing
        self.importRecords = importRecords
        self.importFailures = importFailures
        self.filesByMode = filesByMode
        self.artwork = artwork
        self.tracksWithoutArtwork = tracksWithoutArtwork
        self.overrides = overrides
        self.libraryRoots = libraryRoots
        self.playlists = playlists
        self.playlistEntries = playlistEntries
        self.favorites = favorites
        self.dislikes = dislikes
        self.lyrics = lyrics
        self.recentItems = recentItems
        self.plays = plays
    }
}
