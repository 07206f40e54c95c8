import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage
import GRDB

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
        // ADR-121: the player's two colours come with the album and its tracks: red, then a darker red.
        let colors = try #require(try runtime.store.album(id: 1)?.artworkColors)
        #expect(colors.count == 2 && colors[0].hasPrefix("#f") && colors[0].hasSuffix("1010") && colors[0] != colors[1], "\(colors)")
        #expect(tracks.allSatisfy { $0.artworkColors == colors })
    }

    /// The palette prefers vivid colours over large grey or white areas and picks a second one far enough away.
    @Test func thePalettePrefersVividColoursFarApart() {
        func pixels(_ parts: [(count: Int, rgb: [UInt8])]) -> [UInt8] { parts.flatMap { Array(repeating: $0.rgb, count: $0.count).flatMap { $0 } } }
        // 70 % white, 20 % blue, 10 % orange: blue first (vivid and more of it), orange second.
        let cover = pixels([(70, [250, 250, 250]), (20, [20, 60, 220]), (10, [240, 140, 20])])
        // (Colours are the centres of 32-step buckets.)
        #expect(ArtworkPalette.colors(rgb: cover) == ["#1030d0", "#f09010"])
        // Two blues closer than 60: the second is the first made darker, not its near twin.
        let blues = pixels([(50, [20, 60, 220]), (50, [30, 70, 230])])
        #expect(ArtworkPalette.colors(rgb: blues) == ["#1050f0", "#092c84"])
        // Grey only: plain frequency decides.
        #expect(ArtworkPalette.colors(rgb: pixels([(60, [128, 128, 128]), (40, [20, 20, 20])]))?.first == "#909090")
    }

    @Test func repairGivesOldArtworkItsColours() throws {
        let f = try LibraryFixture()
        let album = try f.album("Band", "Record", tracks: 1)
        let cover = f.dir.appendingPathComponent("cover.jpg")
        try jpeg(cover, color: "blue")
        try PictureFixture.encode(.flac, to: album.appendingPathComponent("01.flac"), frames: 8000,
                                  tags: ["title": "One", "artist": "Band", "album": "Record", "track": "1"],
                                  pictures: [(cover, PictureFixture.frontCover)])
        let runtime = try f.runtime()
        _ = try runtime.library.importPaths([f.music.path], mode: .reference)
        let hash = try #require(try runtime.store.album(id: 1)?.artworkHash)
        // As a library from before v7 has it: no colours.
        try DatabaseQueue(path: f.settings.databaseURL.path).write { db in try db.execute(sql: "UPDATE artwork SET colors = NULL") }
        #expect(try runtime.store.album(id: 1)?.artworkColors == nil)
        _ = hash
        _ = runtime.library.repairArtwork(limit: 10, pause: 0)
        #expect(try runtime.store.album(id: 1)?.artworkColors?.first?.hasSuffix("f0") == true)
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
        // The thumbnail is dated in the past: were it made again, its date would be now.
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: thumb.path)
        let (again, _) = try runtime.library.artworkFile(hash: hash, size: 300)
        let remade = try FileManager.default.attributesOfItem(atPath: thumb.path)[.modificationDate] as? Date
        #expect(again == thumb && remade == past, "the thumbnail was made again")
        // Asked only whether it is made (what the HTTP route does on its event loop): nil before, the file after.
        #expect(try runtime.library.madeArtworkFile(hash: hash, size: 123) == nil)
        let (small, _) = try runtime.library.artworkFile(hash: hash, size: 123)
        #expect(try runtime.library.madeArtworkFile(hash: hash, size: 123)?.url == small)
        #expect(try runtime.library.madeArtworkFile(hash: hash, size: nil)?.mimeType == "image/jpeg")
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
