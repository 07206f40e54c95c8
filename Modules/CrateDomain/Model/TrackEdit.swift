/// A user's edit of a track's metadata. Kept as an override in the database, never written to the file;
/// display, search and playback prefer it, album and artist grouping keep the file's tags.
public struct TrackEdit: Sendable, Hashable, Codable {
    /// New values; nil leaves a field as it is.
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    public var date: String?
    public var trackNumber: Int?
    public var discNumber: Int?
    /// Fields to return to the file's tags (names as in `fields`).
    public var clear: [String]

    public static let fields = ["title", "artist", "album", "album_artist", "genre", "date", "track_number", "disc_number"]

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, albumArtist: String? = nil,
                genre: String? = nil, date: String? = nil, trackNumber: Int? = nil, discNumber: Int? = nil,
                clear: [String] = []) {
        self.title = title
        self.artist = artist
        self.album = album
        self.albumArtist = albumArtist
        self.genre = genre
        self.date = date
        self.trackNumber = trackNumber
        self.discNumber = discNumber
        self.clear = clear
    }

    public var isEmpty: Bool {
        title == nil && artist == nil && album == nil && albumArtist == nil && genre == nil && date == nil
            && trackNumber == nil && discNumber == nil && clear.isEmpty
    }
}
