import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// An `.lrc` beside an audio file is that track's lyrics when its tags carry none: read at import, searchable, and
/// served with its timestamps (synced lyrics).
@Suite struct SidecarLyricsTests {
    @Test func anLRCBesideTheFileIsItsLyrics() async throws {
        let fixture = try LibraryFixture("crate-sidecar-lyrics")
        let folder = try fixture.album("Band", "Sung", tracks: 2)
        let lrc = "[00:01.00]Hello darkness\n[00:03.50]my old friend"
        // A byte-order mark and Windows line ends, as some taggers write them.
        try Data(("\u{FEFF}" + lrc.replacingOccurrences(of: "\n", with: "\r\n")).utf8).write(to: folder.appendingPathComponent("01.lrc"))
        let runtime = try fixture.runtime()
        _ = try runtime.library.importPaths([fixture.music.path], mode: .reference)
        let album = try #require(try runtime.collection.albums().first)
        let tracks = try runtime.collection.tracks(albumID: album.id)
        let sung = try #require(try await runtime.lyrics.lyrics(for: tracks[0]))
        #expect(sung.text == lrc)
        #expect(try await runtime.lyrics.lyrics(for: tracks[1]) == nil)
        // Searchable like lyrics from tags.
        let found = try await runtime.search.search("darkness", groups: [.lyrics])
        #expect(found.group(.lyrics)?.lyrics?.first?.track.id == tracks[0].id)
    }

    /// The folder listing names its lyrics files, so only those are looked for: an upper-case `.LRC` is found that
    /// way, and a file imported by itself (its folder not listed) still looks for its own.
    @Test func upperCaseSidecarsAndFilesImportedByThemselves() async throws {
        let fixture = try LibraryFixture("crate-sidecar-lyrics-single")
        let folder = try fixture.album("Band", "Sung", tracks: 2)
        try Data("[00:01.00]Second verse".utf8).write(to: folder.appendingPathComponent("02.LRC"))
        let other = try fixture.album("Band", "Alone", tracks: 1)
        try Data("[00:01.00]On its own".utf8).write(to: other.appendingPathComponent("01.lrc"))
        let runtime = try fixture.runtime()
        _ = try runtime.library.importPaths([folder.path, other.appendingPathComponent("01.flac").path], mode: .reference)
        let albums = try runtime.collection.albums()
        let sung = try runtime.collection.tracks(albumID: try #require(albums.first { $0.title == "Sung" }).id)
        #expect(try await runtime.lyrics.lyrics(for: sung[0]) == nil)
        #expect(try await runtime.lyrics.lyrics(for: sung[1])?.text == "[00:01.00]Second verse")
        let alone = try runtime.collection.tracks(albumID: try #require(albums.first { $0.title == "Alone" }).id)
        #expect(try await runtime.lyrics.lyrics(for: alone[0])?.text == "[00:01.00]On its own")
    }
}
