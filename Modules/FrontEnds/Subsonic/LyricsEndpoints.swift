import CrateCore
import CrateDomain
import Foundation
import Logging

/// Lyrics from Core's lyrics service (the file's own tags first): by artist and title (`getLyrics`, plain text) and
/// by song (`getLyricsBySongId`, OpenSubsonic's `songLyrics`: lines, timed when the lyrics are LRC).
enum LyricsEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getLyrics": .signedIn(lyrics),
        "getLyricsBySongId": .signedIn(lyricsBySong),
    ]

    /// The lyrics of the first library song with this `artist` and `title` (either may be left out) that has some.
    /// None found is an empty `lyrics`, as the spec has it, not an error.
    static func lyrics(_ call: SubsonicCall) async throws -> SubsonicReply {
        let artist = call.parameters.string("artist")?.trimmingCharacters(in: .whitespaces) ?? ""
        let title = call.parameters.string("title")?.trimmingCharacters(in: .whitespaces) ?? ""
        var match: (track: Track, lyrics: Lyrics)?
        for track in try await songs(artist: artist, title: title, call) {
            if let found = try await call.services.runtime.lyrics.lyrics(for: track) {
                match = (track, found)
                break
            }
        }
        let found = match
        return .payload(SubsonicObject {
            $0["lyrics"] = SubsonicObject { item in
                item["artist"] = found?.track.artist
                item["title"] = found?.track.title
                item["value"] = found.map { LyricsLines($0.lyrics.text).plainText } ?? ""
            }
        })
    }

    /// Library songs titled `title` by `artist` (the song's artist or its album's, in any case and accents), found
    /// through Core's search by their words.
    static func songs(artist: String, title: String, _ call: SubsonicCall) async throws -> [Track] {
        // Only the words go to the search: its query language gives quotes, colons and dashes meanings of their own.
        let words = (title + " " + artist).map { $0.isLetter || $0.isNumber ? $0 : " " }
        let text = String(words).split(separator: " ").joined(separator: " ")
        guard !text.isEmpty else { return [] }
        let found: [Track]
        do {
            found = try await call.services.runtime.search.search(text, groups: [.tracks], limit: 100).group(.tracks)?.tracks ?? []
        } catch {
            call.services.logger.debug("subsonic: getLyrics found nothing for '\(text)': \(ErrorText.describe(error))")
            return []
        }
        func same(_ a: String, _ b: String) -> Bool { a.compare(b, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        return found.filter { track in
            track.ref.isFile && (title.isEmpty || same(track.title, title))
                && (artist.isEmpty || same(track.artist, artist) || same(track.albumArtist, artist))
        }
    }

    /// A song's lyrics as one `structuredLyrics` (language unknown: `und`), or an empty `lyricsList` when it has none.
    static func lyricsBySong(_ call: SubsonicCall) async throws -> SubsonicReply {
        let track = try BrowsingEndpoints.libraryTrack(try call.parameters.required("id"), call)
        var list: [SubsonicObject] = []
        if let found = try await call.services.runtime.lyrics.lyrics(for: track) {
            let lines = LyricsLines(found.text)
            list.append(SubsonicObject { lyrics in
                lyrics["displayArtist"] = track.artist
                lyrics["displayTitle"] = track.title
                // Crate does not know the lyrics' language; ISO 639's "undetermined", as the spec asks.
                lyrics["lang"] = "und"
                lyrics["synced"] = lines.synced
                lyrics["line"] = lines.lines.map { line in
                    SubsonicObject {
                        $0["start"] = line.start
                        $0["value"] = line.text
                    }
                }
            })
        }
        let structured = list
        return .payload(SubsonicObject { $0["lyricsList"] = SubsonicObject { $0["structuredLyrics"] = structured } })
    }
}
