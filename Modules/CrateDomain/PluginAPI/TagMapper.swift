import Foundation

/// Maps the field names of each tag format onto `TrackTags`.
/// Vorbis comments serve Opus, Vorbis and FLAC; ID3v2 frame ids serve MP3; RIFF INFO ids serve WAV.
/// The first non-empty value of a field wins, as players do with repeated comments; genre keeps every value
/// (`GenreList`).
public struct TagMapper: Sendable {
    public private(set) var tags = TrackTags()

    public init() {}

    /// A Vorbis comment (`KEY=value`, key case-insensitive).
    public mutating func vorbisComment(_ key: String, _ value: String) {
        switch key.uppercased() {
        case "TITLE": set(\.title, value)
        case "ARTIST": set(\.artist, value)
        case "ALBUMARTIST", "ALBUM ARTIST", "ALBUM_ARTIST": set(\.albumArtist, value)
        case "ALBUM": set(\.album, value)
        case "GENRE": addGenre(value)
        case "DATE", "YEAR": set(\.date, value)
        case "TRACKNUMBER", "TRACK": numberPair(value, \.trackNumber, \.trackTotal)
        case "TRACKTOTAL", "TOTALTRACKS": number(value, \.trackTotal)
        case "DISCNUMBER", "DISC": numberPair(value, \.discNumber, \.discTotal)
        case "DISCTOTAL", "TOTALDISCS": number(value, \.discTotal)
        // Picard and foobar2000 write DISCSUBTITLE; SETSUBTITLE is the older name some taggers still use.
        case "DISCSUBTITLE", "SETSUBTITLE": set(\.discSubtitle, value)
        case "MUSICBRAINZ_ALBUMID": set(\.musicBrainzAlbumID, value)
        case "COMPILATION": flag(value)
        case "LYRICS", "UNSYNCEDLYRICS", "UNSYNCED LYRICS": set(\.lyrics, value)
        case "ARTISTSORT": set(\.artistSort, value)
        case "ALBUMARTISTSORT": set(\.albumArtistSort, value)
        case let key where key.hasPrefix("REPLAYGAIN_"): replayGain(key, value)
        // Opus (RFC 7845 §5.2.1): Q7.8 dB towards −23 LUFS, converted; they win over REPLAYGAIN_* in the same file.
        case "R128_TRACK_GAIN": r128(\.trackGain, value, seen: \.r128Track)
        case "R128_ALBUM_GAIN": r128(\.albumGain, value, seen: \.r128Album)
        default: break
        }
    }

    /// A whole comment string in the `KEY=value` form.
    public mutating func vorbisComment(_ entry: String) {
        guard let eq = entry.firstIndex(of: "=") else { return }
        vorbisComment(String(entry[..<eq]), String(entry[entry.index(after: eq)...]))
    }

    /// An ID3v2 text frame (`TIT2`, `TPE1`, ...); v2.2 three-letter ids are accepted too.
    /// `description` is the TXXX description, used for MusicBrainz ids, disc subtitles and the like.
    public mutating func id3Frame(_ id: String, _ value: String, description: String? = nil) {
        switch id.uppercased() {
        case "TIT2", "TT2": set(\.title, value)
        case "TPE1", "TP1": set(\.artist, value)
        case "TPE2", "TP2": set(\.albumArtist, value)
        case "TALB", "TAL": set(\.album, value)
        case "TCON", "TCO": addGenre(Self.id3Genre(value))
        case "TDRC", "TYER", "TYE", "TDRL": set(\.date, value)
        case "TRCK", "TRK": numberPair(value, \.trackNumber, \.trackTotal)
        case "TPOS", "TPA": numberPair(value, \.discNumber, \.discTotal)
        case "TSST": set(\.discSubtitle, value)
        case "TCMP", "TCP": flag(value)
        case "USLT", "ULT": set(\.lyrics, value)
        case "TSOP", "TSP": set(\.artistSort, value)
        case "TSO2", "TS2": set(\.albumArtistSort, value)
        case "TXXX":
            switch description?.uppercased() {
            case "MUSICBRAINZ ALBUM ID", "MUSICBRAINZ_ALBUMID": set(\.musicBrainzAlbumID, value)
            case "ALBUMARTIST", "ALBUM ARTIST": set(\.albumArtist, value)
            case "ALBUMARTISTSORT": set(\.albumArtistSort, value)
            // foobar2000 and Mp3tag keep lyrics in a user text frame.
            case "UNSYNCEDLYRICS", "LYRICS": set(\.lyrics, value)
            // TSST is ID3v2.4 only: v2.3 taggers (and ffmpeg) keep the disc subtitle in a user text frame.
            case "DISCSUBTITLE", "SETSUBTITLE": set(\.discSubtitle, value)
            // foobar2000 writes the descriptions in lower case, Mp3tag and ffmpeg in upper case.
            case let key? where key.hasPrefix("REPLAYGAIN_"): replayGain(key, value)
            default: break
            }
        default: break
        }
    }

    /// A RIFF `LIST/INFO` sub-chunk of a WAV file.
    public mutating func riffInfo(_ id: String, _ value: String) {
        switch id {
        case "INAM": set(\.title, value)
        case "IART": set(\.artist, value)
        case "IPRD": set(\.album, value)
        case "IGNR": addGenre(value)
        case "ICRD": set(\.date, value)
        case "ITRK", "IPRT": numberPair(value, \.trackNumber, \.trackTotal)
        default: break
        }
    }

    /// Set once an Opus R128 gain was read: a REPLAYGAIN_* gain of the same file does not replace it.
    private var r128Track = false
    private var r128Album = false

    /// `REPLAYGAIN_TRACK_GAIN` and friends (key upper-cased); the first valid value of each wins.
    private mutating func replayGain(_ key: String, _ raw: String) {
        switch key {
        case "REPLAYGAIN_TRACK_GAIN": gain(\.trackGain, ReplayGainTags.parseGain(raw))
        case "REPLAYGAIN_ALBUM_GAIN": gain(\.albumGain, ReplayGainTags.parseGain(raw))
        case "REPLAYGAIN_TRACK_PEAK": gain(\.trackPeak, ReplayGainTags.parsePeak(raw))
        case "REPLAYGAIN_ALBUM_PEAK": gain(\.albumPeak, ReplayGainTags.parsePeak(raw))
        default: break
        }
    }

    private mutating func gain(_ field: WritableKeyPath<ReplayGainTags, Double?>, _ value: Double?) {
        guard let value else { return }
        var rg = tags.replayGain ?? ReplayGainTags()
        guard rg[keyPath: field] == nil else { return }
        rg[keyPath: field] = value
        tags.replayGain = rg
    }

    private mutating func r128(_ field: WritableKeyPath<ReplayGainTags, Double?>, _ raw: String,
                               seen: WritableKeyPath<TagMapper, Bool>) {
        guard !self[keyPath: seen], let value = ReplayGainTags.parseR128(raw) else { return }
        self[keyPath: seen] = true
        var rg = tags.replayGain ?? ReplayGainTags()
        rg[keyPath: field] = value
        tags.replayGain = rg
    }

    private mutating func set(_ field: WritableKeyPath<TrackTags, String?>, _ raw: String) {
        let value = raw.trimming(\.isPadding)
        guard tags[keyPath: field] == nil, !value.isEmpty else { return }
        tags[keyPath: field] = value
    }

    private mutating func addGenre(_ raw: String) {
        tags.genre = GenreList.adding(raw.trimming(\.isPadding), to: tags.genre)
    }

    private mutating func number(_ raw: String, _ field: WritableKeyPath<TrackTags, Int?>) {
        guard tags[keyPath: field] == nil, let n = Self.leadingNumber(raw) else { return }
        tags[keyPath: field] = n
    }

    /// "3/12" gives number 3 and total 12.
    private mutating func numberPair(_ raw: String, _ num: WritableKeyPath<TrackTags, Int?>,
                                     _ total: WritableKeyPath<TrackTags, Int?>) {
        let parts = raw.split(separator: "/", maxSplits: 1)
        guard let first = parts.first else { return }
        number(String(first), num)
        if parts.count == 2 { number(String(parts[1]), total) }
    }

    private mutating func flag(_ raw: String) {
        let value = raw.trimming(\.isBlank).lowercased()
        if ["1", "true", "yes"].contains(value) { tags.isCompilation = true }
    }

    static func leadingNumber(_ raw: String) -> Int? {
        let digits = raw.trimming(\.isBlank).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9, let n = Int(digits), n > 0 else { return nil }
        return n
    }

    /// ID3v1-style genre references "(17)", "(17)(4)" or "17" become names ("Rock; Disco"); text after the
    /// references ("(4)Eurodisco") refines them and wins, as ID3v2.3 specifies; other text passes through.
    static func id3Genre(_ raw: String) -> String {
        var rest = Substring(raw.trimming(\.isBlank))
        var names: [String] = []
        while rest.hasPrefix("("), let close = rest.firstIndex(of: ")") {
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            if let n = Int(inner), n >= 0, n < id3v1Genres.count { names.append(id3v1Genres[n]) }
            else if inner == "RX" { names.append("Remix") } else if inner == "CR" { names.append("Cover") }
            rest = rest[rest.index(after: close)...]
        }
        let refinement = rest.trimming(\.isBlank)
        guard !names.isEmpty else {
            if let n = Int(refinement), n >= 0, n < id3v1Genres.count { return id3v1Genres[n] }
            return raw
        }
        return refinement.isEmpty ? names.joined(separator: GenreList.separator) : refinement
    }

    static let id3v1Genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
        "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
        "Sound Clip", "Gospel", "Noise", "Alternative Rock", "Bass", "Soul", "Punk", "Space", "Meditative",
        "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
        "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta",
        "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave",
        "Psychedelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka",
        "Retro", "Musical", "Rock & Roll", "Hard Rock",
    ]
}
