import CrateDomain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Lyrics in a file beside the audio (`01 Song.lrc` next to `01 Song.flac`), as LRC players and taggers keep them:
/// read at import when the audio file's own tags carry none, so they are searchable and their timestamps reach the
/// web page's now-playing sheet and Subsonic apps (synced lyrics).
enum SidecarLyrics {
    /// Larger files are no lyrics.
    static let largest = 256 * 1024

    /// Whether `audioPath` may have a sidecar among `lyricsFiles` (a folder's `.lrc` files; nil: not known).
    static func mayExist(for audioPath: String, among lyricsFiles: Set<String>?) -> Bool {
        guard let lyricsFiles else { return true }
        guard !lyricsFiles.isEmpty else { return false }
        // Plain string work: the listing's paths are compared as they are, escapes of non-UTF-8 names included.
        let name = audioPath.lastIndex(of: "/").map { audioPath.index(after: $0) } ?? audioPath.startIndex
        let stem = audioPath[name...].lastIndex(of: ".").flatMap { $0 > name ? audioPath[..<$0] : nil } ?? audioPath[...]
        return lyricsFiles.contains(stem + ".lrc") || lyricsFiles.contains(stem + ".LRC")
    }

    /// The text of `audioPath`'s `.lrc` sidecar, UTF-8 or else Latin-1; nil when there is none.
    static func read(for audioPath: String) -> String? {
        let url = URL(fileURLWithPath: audioPath).deletingPathExtension()
        for suffix in ["lrc", "LRC"] {
            let candidate = url.appendingPathExtension(suffix).path
            guard let status = RawFileName.status(candidate), status.st_size > 0, status.st_size <= largest,
                  let data = try? RawFileName.contents(candidate, limit: largest) else { continue }
            let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1)
            // A byte-order mark and Windows line ends are the taggers', not the lyrics'.
            guard let clean = text?.replacingOccurrences(of: "\u{FEFF}", with: "").replacingOccurrences(of: "\r\n", with: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines), !clean.isEmpty else { continue }
            return clean
        }
        return nil
    }
}
