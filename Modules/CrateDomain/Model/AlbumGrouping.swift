public import Foundation

/// Which album a track belongs to. `identity` is stable across rescans and never merges
/// same-titled albums by different artists.
public struct AlbumKey: Sendable, Hashable, Codable {
    /// `mb:<musicbrainz album id>`, `tags:<album artist>␟<album>␟<year>` or `folder:<path>`.
    public var identity: String
    public var title: String
    public var artist: String
    public var date: String?
    public var isCompilation: Bool

    public init(identity: String, title: String, artist: String, date: String?, isCompilation: Bool) {
        self.identity = identity
        self.title = title
        self.artist = artist
        self.date = date
        self.isCompilation = isCompilation
    }
}

/// The album grouping rules, applied to the tracks found in one folder:
/// - a MusicBrainz album id decides alone;
/// - else album artist + album + release year, where the album artist is the tagged one,
///   or "Various Artists" for a compilation flag, or the track artist shared by more than half
///   of the folder's tracks of that album, or "Various Artists" when no artist has a majority;
/// - an untagged album is named after its folder and keyed by the folder's path.
/// Discs of one album share the key because disc numbers are not part of it.
public enum AlbumGrouping {
    public static let variousArtists = "Various Artists"
    public static let unknownArtist = "Unknown Artist"

    /// Returns one key per entry of `tags`, in order.
    public static func keys(for tags: [TrackTags], folder: URL) -> [AlbumKey] {
        // Album artists for untagged groups come from the majority of track artists in the folder.
        var artistsByAlbum: [String: [String]] = [:]
        for t in tags where t.albumArtist == nil {
            artistsByAlbum[groupKey(t), default: []].append(t.artist ?? unknownArtist)
        }
        let consensus = artistsByAlbum.mapValues(majority)

        return tags.map { t in
            let title = t.album ?? (folder.lastPathComponent.isEmpty ? "Unknown Album" : folder.lastPathComponent)
            let artist: String
            if let tagged = t.albumArtist {
                artist = tagged
            } else if t.isCompilation {
                artist = variousArtists
            } else {
                artist = consensus[groupKey(t)] ?? t.artist ?? unknownArtist
            }
            let compilation = t.isCompilation || artist == variousArtists
            let identity: String
            if let mbid = t.musicBrainzAlbumID {
                identity = "mb:" + mbid.lowercased()
            } else if t.album == nil {
                identity = "folder:" + folder.standardizedFileURL.path
            } else {
                let year = t.year.map(String.init) ?? ""
                identity = "tags:" + [normalize(artist), normalize(title), year].joined(separator: "\u{1F}")
            }
            return AlbumKey(identity: identity, title: title, artist: artist, date: t.date, isCompilation: compilation)
        }
    }

    private static func groupKey(_ t: TrackTags) -> String {
        (t.album.map(normalize) ?? "") + "\u{1F}" + (t.year.map(String.init) ?? "") + (t.isCompilation ? "\u{1F}c" : "")
    }

    private static func majority(_ artists: [String]) -> String {
        var counts: [String: Int] = [:]
        for a in artists { counts[normalize(a), default: 0] += 1 }
        guard let (top, n) = counts.max(by: { $0.value < $1.value }), n * 2 > artists.count else {
            return variousArtists
        }
        return artists.first { normalize($0) == top } ?? variousArtists
    }

    /// Case- and space-insensitive form used inside identities.
    public static func normalize(_ s: String) -> String {
        s.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
