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

    static func song(_ entry: QueueEntry, folders: [String]) -> String {
        let t = entry.track
        var out = "file: \(MPDArguments.value(uri(t, folders: folders)))\n"
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            out += "\(name): \(MPDArguments.value(value))\n"
        }
        field("Artist", t.artist)
        field("AlbumArtist", t.albumArtist)
        field("Title", t.title)
        field("Album", t.album)
        field("Track", t.trackNumber.map(String.init))
        field("Disc", t.discNumber.map(String.init))
        field("Date", t.date)
        field("Genre", t.genre)
        if t.duration > 0 {
            out += "Time: \(Int(t.duration.rounded()))\n"
            out += "duration: \(String(format: "%.3f", t.duration))\n"
        }
        out += "Pos: \(entry.index - 1)\nId: \(entry.id)\n"
        return out
    }
}
