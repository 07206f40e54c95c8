/// The tags Crate keeps for a track, whatever container they came from.
/// Decoders fill it through `TagMapper`, which knows each format's field names.
public struct TrackTags: Sendable, Hashable, Codable {
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    public var genre: String?
    /// The release date as tagged ("1997", "1997-05-21").
    public var date: String?
    public var trackNumber: Int?
    public var trackTotal: Int?
    public var discNumber: Int?
    public var discTotal: Int?
    /// The disc's own title on a multi-disc album ("The Live Set"): Vorbis DISCSUBTITLE, ID3v2.4 TSST.
    public var discSubtitle: String?
    public var musicBrainzAlbumID: String?
    public var isCompilation: Bool = false
    /// Unsynchronised lyrics (ID3 USLT, Vorbis LYRICS / UNSYNCEDLYRICS).
    public var lyrics: String?
    /// Sort names (ID3 TSOP / TSO2, Vorbis ARTISTSORT / ALBUMARTISTSORT): "Beatles, The".
    public var artistSort: String?
    public var albumArtistSort: String?
    /// ReplayGain / Opus R128 gains and peaks, in ReplayGain 2.0 terms (see `Loudness`); nil when the file has none.
    public var replayGain: ReplayGainTags?

    public init(title: String? = nil, artist: String? = nil, albumArtist: String? = nil, album: String? = nil,
                genre: String? = nil, date: String? = nil, trackNumber: Int? = nil, trackTotal: Int? = nil,
                discNumber: Int? = nil, discTotal: Int? = nil, discSubtitle: String? = nil,
                musicBrainzAlbumID: String? = nil, isCompilation: Bool = false, lyrics: String? = nil,
                artistSort: String? = nil, albumArtistSort: String? = nil, replayGain: ReplayGainTags? = nil) {
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
        self.musicBrainzAlbumID = musicBrainzAlbumID
        self.isCompilation = isCompilation
        self.lyrics = lyrics
        self.artistSort = artistSort
        self.albumArtistSort = albumArtistSort
        self.replayGain = replayGain
    }

    /// The four leading digits of `date`, when they look like a year.
    public var year: Int? { Self.year(of: date) }

    /// The four leading digits of a date text, when they look like a year ("1997-05-21" → 1997).
    public static func year(of date: String?) -> Int? {
        guard let date else { return nil }
        let digits = date.prefix(4)
        guard digits.count == 4, digits.allSatisfy(\.isASCII), let year = Int(digits), year > 0 else { return nil }
        return year
    }
}
