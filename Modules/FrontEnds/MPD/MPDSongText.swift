import CrateDomain
import Foundation

/// A queue entry as MPD describes a song (`currentsong`, `playlistinfo`): `file:` first, tags, `Time`, `duration`,
/// `Pos` (0-based) and `Id` (Crate's queue entry id, stable while the entry is queued).
enum MPDSongText {
    /// The song's URI: a file's path relative to the music folder that holds it (as to MPD's `music_directory`),
    /// behind that folder's name when the library has several (`Music/…`, `Jazz/…`); else its absolute path. A
    /// stream's URL.
    static func uri(_ track: Track, folders: [String]) -> String {
        guard let path = track.path else { return track.ref.id }
        let holding = folders.filter { path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        guard let folder = holding.max(by: { $0.count < $1.count }) else { return path }
        let relative = String(path.dropFirst(folder.count).drop { $0 == "/" })
        let named = folders.count > 1 ? (folder.split(separator: "/").last.map(String.init) ?? "") : ""
        return named.isEmpty ? relative : named + "/" + relative
    }

    /// The tags a song can carry, as `tagtypes` names them; a client may narrow them (`tagtypes disable …`).
    static let tagTypes = ["Artist", "AlbumArtist", "Title", "Album", "Track", "Disc", "Date", "Genre"]
    /// MPD's other tag names (lowercased), which clients may name in `tagtypes enable|disable`.
    static let otherMPDTags: Set<String> = [
        "artistsort", "albumsort", "albumartistsort", "name", "originaldate", "composer", "composersort", "performer",
        "conductor", "work", "ensemble", "movement", "movementnumber", "location", "grouping", "comment", "label",
        "musicbrainz_artistid", "musicbrainz_albumid", "musicbrainz_albumartistid", "musicbrainz_trackid",
        "musicbrainz_releasetrackid", "musicbrainz_workid", "musicbrainz_releasegroupid",
    ]

    /// A queue entry: the song, its place (`Pos`, 0-based) and its id.
    static func song(_ entry: QueueEntry, folders: [String], tags: Set<String>) -> String {
        song(entry.track, uri: uri(entry.track, folders: folders), tags: tags) + "Pos: \(entry.index - 1)\nId: \(entry.id)\n"
    }

    /// A song of the library: `file:`, its tags (those in `tags`), `Time` and `duration`.
    static func song(_ t: Track, uri: String, tags: Set<String>) -> String {
        var out = "file: \(MPDArguments.value(uri))\n"
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty, tags.contains(name) else { return }
            out += "\(name): \(MPDArguments.value(value))\n"
        }
        field("Artist", t.artist)
        field("AlbumArtist", t.albumArtist)
        field("Title", t.title)
        field("Album", t.album)
        field("Track", t.trackNumber.map(String.init))
        field("Disc", t.discNumber.map(String.init))
        field("Date", t.date)
        for genre in (t.genre ?? "").components(separatedBy: "; ") { field("Genre", genre) }
        if t.duration > 0 {
            out += "Time: \(Int(t.duration.rounded()))\n"
            out += "duration: \(String(format: "%.3f", t.duration))\n"
        }
        return out
    }
}
