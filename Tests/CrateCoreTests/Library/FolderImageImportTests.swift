import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

/// Issue 16 item 19: a folder's cover image named on the command line (`crate import Album/*`) is artwork, not a
/// failed import, and the audio files named beside it take it as their cover.
@Suite struct FolderImageImportTests {
    @Test(arguments: [ImportMode.reference, .copy])
    func aCoverImageNamedWithTheFilesIsTheAlbumsArtwork(mode: ImportMode) throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record", tracks: 2)
        let cover = album.appendingPathComponent("cover.jpg")
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=green:s=64x64",
                                   "-frames:v", "1", cover.path])
        // What the shell hands over for `Album/*`: every file of the folder, the image among them.
        let named = try FileManager.default.contentsOfDirectory(atPath: album.path).sorted().map { album.appendingPathComponent($0).path }
        #expect(named.contains(cover.path))
        let runtime = try f.runtime()
        let report = try runtime.library.importPaths(named, mode: mode)
        #expect(report.failureCount == 0, "failures: \(report.failures)")
        #expect(report.imported == 2)
        #expect(report.nonAudio == 1)
        let hash = try #require(try runtime.store.album(id: 1)?.artworkHash, "the album has no artwork")
        let (url, _) = try runtime.library.artworkFile(hash: hash)
        #expect(try Data(contentsOf: url) == Data(contentsOf: cover))
        #expect(try runtime.store.tracks(albumID: 1).allSatisfy { $0.artworkHash == hash })
        #expect(try runtime.store.scanFailures().isEmpty)
    }
}
