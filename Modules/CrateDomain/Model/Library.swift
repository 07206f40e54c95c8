public import Foundation

/// An album as the library lists it.
public struct Album: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var identity: String
    public var title: String
    public var artist: String
    public var date: String?
    public var year: Int?
    public var genre: String?
    public var isCompilation: Bool
    public var trackCount: Int
    public var discCount: Int
    /// Total length in seconds.
    public var duration: Double
    public var addedAt: Date
    /// The album's artwork (see `ArtworkRecord`), from its first track that has one or its folder image.
    public var artworkHash: String?
    /// The two colours of the player's gradient taken from the artwork (ADR-121), `#rrggbb`.
    public var artworkColors: [String]?
    /// Liked (a favorite) or disliked; nil when neither.
    public var opinion: Opinion?
    public var playCount: Int
    public var lastPlayedAt: Date?
    /// Where the album comes from: `file` for the library, a source's scheme (`applemusic`) for catalogs.
    public var source: String
    /// The source's own id for catalog albums (a string: "1616728060", "l.AbC"); `id` is its number when
    /// it has one, else 0.
    public var externalID: String?
    /// Artwork at a requested size for catalog albums (library albums use `artworkHash`).
    public var artworkURL: String?
    /// All the album's genres (catalogs list several; library albums have `genre`).
    public var genres: [String]

    /// Whether the album is the library's own (files), not a catalog's.
    public var isLibraryAlbum: Bool { source == TrackRef.fileScheme }

    public init(id: Int64, identity: String, title: String, artist: String, date: String?, year: Int?, genre: String?,
                isCompilation: Bool, trackCount: Int, discCount: Int, duration: Double, addedAt: Date,
                artworkHash: String? = nil, opinion: Opinion? = nil, playCount: Int = 0, lastPlayedAt: Date? = nil,
                source: String = TrackRef.fileScheme, externalID: String? = nil, artworkURL: String? = nil, genres: [String] = []) {
        self.id = id
        self.identity = identity
        self.title = title
        self.artist = artist
        self.date = date
        self.year = year
        self.genre = genre
        self.isCompilation = isCompilation
        self.trackCount = trackCount
        self.discCount = discCount
        self.duration = duration
        self.addedAt = addedAt
        self.artworkHash = artworkHash
        self.opinion = opinion
        self.playCount = playCount
        self.lastPlayedAt = lastPlayedAt
        self.source = source
        self.externalID = externalID
        self.artworkURL = artworkURL
        self.genres = genres
    }
}

/// A track as the library lists and plays it.
public struct Track: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var ref: TrackRef
    public var albumID: Int64
    public var title: String
    public var artist: String
    public var albumArtist: String
    public var album: String
    public var genre: String?
    public var date: String?
    public var trackNumber: Int?
    public var trackTotal: Int?
    public var discNumber: Int?
    public var discTotal: Int?
    /// The disc's title on a multi-disc album ("The Live Set"), as tagged; absent from JSON when the file has none.
    public var discSubtitle: String?
    /// Length in seconds.
    public var duration: Double
    public var info: StreamInfo
    /// The file on disk, for file-backed sources.
    public var path: String?
    public var artworkHash: String?
    /// The two colours of the player's gradient taken from the artwork (ADR-121), `#rrggbb`.
    public var artworkColors: [String]?
    /// Why the track's file cannot be played, when it cannot.
    public var missing: MissingReason?
    /// How the file came into the library (nil for tracks without a file).
    public var importMode: ImportMode?
    /// Whether the user edited its metadata (the fields above already show the edits).
    public var edited: Bool
    public var favorite: Bool
    public var playCount: Int
    public var lastPlayedAt: Date?
    public var addedAt: Date?
    /// False for catalog tracks that only their owner's players may play in full (DRM).
    public var playableInFull: Bool
    /// A short preview (catalog tracks: 30 s), for a preview player.
    public var previewURL: String?

    public init(id: Int64, ref: TrackRef, albumID: Int64, title: String, artist: String, albumArtist: String,
                album: String, genre: String?, date: String?, trackNumber: Int?, trackTotal: Int?,
                discNumber: Int?, discTotal: Int?, discSubtitle: String? = nil, duration: Double, info: StreamInfo,
                path: String?, artworkHash: String? = nil, missing: MissingReason? = nil, importMode: ImportMode? = nil,
                edited: Bool = false, favorite: Bool = false, playCount: Int = 0, lastPlayedAt: Date? = nil,
                addedAt: Date? = nil, playableInFull: Bool = true, previewURL: String? = nil) {
        self.id = id
        self.ref = ref
        self.albumID = albumID
        self.title = title
        self.artist = artist
        self.albumArtist = albumArtist
        self.album = album
        self.genre = genre
        self.date = date
        self.trackNumber = trackNumber
        self.trackTotal = trackTotal
        self.discNumber = discNumber
        self.discTotal = discTotal
        self.discSubtitle = discSubtitle
        self.duration = duration
        self.info = info
        self.path = path
        self.artworkHash = artworkHash
        self.missing = missing
        self.importMode = importMode
        self.edited = edited
        self.favorite = favorite
        self.playCount = playCount
        self.lastPlayedAt = lastPlayedAt
        self.addedAt = addedAt
        self.playableInFull = playableInFull
        self.previewURL = previewURL
    }
}
