import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

@Suite struct ArtworkTests {
    func jpeg(_ url: URL, color: String, size: String = "640x480") throws {
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=\(size)",
                                   "-frames:v", "1", url.path])
    }

    @Test func embeddedPicturesAreStoredOncePerContentAndGiveTheAlbumItsArtwork() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record", tracks: 3)
        let cover = f.dir.appendingPathComponent("cover.jpg")
        try jpeg(cover, color: "red")
        for n in 1...3 {
            try PictureFixture.encode(.flac, to: album.appendingPathComponent("0\(n).flac"), frames: 8000 + n * 100,
                                      tags: ["title": "Record \(n)", "artist": "Band", "album": "Record", "track": "\(n)"],
                                      pictures: [(cover, PictureFixture.frontCover)])
        }
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let tracks = try runtime.store.tracks(albumID: 1)
        let hash = try #require(tracks.first?.artworkHash)
        #expect(tracks.allSatisfy { $0.artworkHash == hash })
        #expect(try runtime.store.album(id: 1)?.artworkHash == hash)
        #expect(try runtime.library.diagnostics().artwork == 1)
        let (url, mime) = try runtime.library.artworkFile(hash: hash)
        let stored = try Data(contentsOf: url), original = try Data(contentsOf: cover)
        #expect(mime == "image/jpeg" && stored == original)
        #expect(f.files(under: f.settings.artworkFolder).count == 1)
    }

    @Test func aFolderImageIsUsedWhenNothingIsEmbedded() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record")
        try jpeg(album.appendingPathComponent("Folder.jpg"), color: "blue")
        try jpeg(album.appendingPathComponent("cover.jpg"), color: "green")   // cover.* wins over folder.*
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        let hash = try #require(try runtime.store.album(id: 1)?.artworkHash)
        let (url, _) = try runtime.library.artworkFile(hash: hash)
        #expect(try Data(contentsOf: url) == Data(contentsOf: album.appendingPathComponent("cover.jpg")))
        #expect(try runtime.store.tracks(albumID: 1).allSatisfy { $0.artworkHash == hash })
    }

    @Test func thumbnailsAreMadeOnceAtWallSize() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record", tracks: 1)
        try jpeg(album.appendingPathComponent("cover.jpg"), color: "red", size: "1200x800")
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path])
        let hash = try #require(try runtime.store.album(id: 1)?.artworkHash)
        let (thumb, mime) = try runtime.library.artworkFile(hash: hash, size: 300)
        #expect(mime == "image/jpeg")
        let probe = try Fixture.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", thumb.path])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "300,200")
        let made = try FileManager.default.attributesOfItem(atPath: thumb.path)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 0.05)
        let (again, _) = try runtime.library.artworkFile(hash: hash, size: 300)
        let remade = try FileManager.default.attributesOfItem(atPath: thumb.path)[.modificationDate] as? Date
        #expect(again == thumb && remade == made)
    }

    @Test func repairFillsMissingArtworkOnlyAndStopsAtItsCap() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record", tracks: 3)
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(try runtime.store.album(id: 1)?.artworkHash == nil)
        // A cover appears later; the tracks were already looked at, so only a forgotten look brings it in:
        // deleting the artwork files and repairing resets those tracks, as an upgrade from before artwork does.
        try jpeg(album.appendingPathComponent("cover.jpg"), color: "red")
        #expect(runtime.library.repairArtwork(limit: 10, pause: 0).checked == 0)   // missing-only: nothing to look at
        try runtime.store.resetArtworkChecks()
        let first = runtime.library.repairArtwork(limit: 2, pause: 0)
        #expect(first.state == .done && first.checked == 2 && first.filled == 2 && first.remaining == 1)
        let second = runtime.library.repairArtwork(limit: 2, pause: 0)
        #expect(second.checked == 1 && second.remaining == 0)
        #expect(try runtime.store.album(id: 1)?.artworkHash != nil)
        // Artwork whose file disappeared is forgotten by the database repair and found again.
        let hash = try #require(try runtime.store.album(id: 1)?.artworkHash)
        try FileManager.default.removeItem(at: try runtime.library.artworkFile(hash: hash).url)
        #expect(try runtime.library.repair().artworkFilesMissing == 1)
        #expect(runtime.library.repairArtwork(limit: 10, pause: 0).filled == 3)
    }
}
