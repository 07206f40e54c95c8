import CrateCore
import CratePlugins
import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

/// Issue 31: folders and files named in Latin-1 (disks copied from old Windows machines) are imported, shown
/// readably, played, and survive rescans, missing checks and moves, with their paths kept as the bytes on disk.
@Suite struct Latin1NameTests {
    /// "Café Tacô" and "Été 1.flac" as Latin-1 bytes (0xE9 é, 0xF4 ô, 0xC9 É): not UTF-8.
    static let folderBytes: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(" Tac".utf8) + [0xF4]
    static func fileBytes(_ n: Int) -> [UInt8] { [0xC9] + Array("t".utf8) + [0xE9] + Array(" \(n).flac".utf8) }

    /// Renames `from` to `to`, both as the bytes they stand for.
    func rename(_ from: String, to: String) throws {
        let code = RawFileName.withCPath(from) { source in RawFileName.withCPath(to) { target in Glibc.rename(source, target) } }
        try #require(code == 0, "rename to \(RawFileName.readable(to)): errno \(errno)")
    }

    @Test func latin1FoldersAndFilesAreImportedPlayedAndKept() async throws {
        let f = try LibraryFixture()
        // Made with UTF-8 names, then given their Latin-1 ones.
        let made = try f.album("Band", "Record")
        let folder = f.music.path + "/" + RawFileName.string(Self.folderBytes)
        for n in 1...2 { try rename(made.appendingPathComponent("0\(n).flac").path, to: made.path + "/" + RawFileName.string(Self.fileBytes(n))) }
        try rename(made.path, to: folder)
        #expect(RawFileName.exists(folder) && !RawFileName.exists(made.path))

        let runtime = try f.runtime()
        let report = try runtime.library.importPaths([f.music.path], mode: .reference)
        #expect(report.imported == 2 && report.failureCount == 0, "\(report)")
        let tracks = try runtime.collection.tracks(albumID: try #require(try runtime.collection.albums().first).id)
        let paths = tracks.compactMap(\.path)
        // The paths are the bytes on disk, and read as the Windows names they were.
        #expect(paths.map(RawFileName.bytes) == (1...2).map { Array(f.music.path.utf8) + [0x2F] + Self.folderBytes + [0x2F] + Self.fileBytes($0) })
        #expect(paths.map { RawFileName.readable($0) } == (1...2).map { "\(f.music.path)/Café Tacô/Été \($0).flac" })
        #expect(RawFileName.readable(paths[0], charset: .windows1252) == RawFileName.readable(paths[0], charset: .latin1))

        // A rescan finds them unchanged; the missing check finds them there.
        let again = try runtime.library.rescan()
        #expect(again.unchanged == 2 && again.imported == 0 && again.failureCount == 0, "\(again)")
        #expect(try runtime.library.checkMissing().newlyMissing == 0)
        #expect(try runtime.library.missingTracks().isEmpty)

        // They play (the null output as fast as they decode).
        let player = try await PlayerService.start(runtime: runtime, output: "null")
        try await player.playList(tracks.map(\.id))
        try await waitUntilAsync("both Latin-1 files to play", seconds: 120) { try await player.history().count == 2 }
        #expect(try await player.status().lastSkip == nil)
        await player.shutdown()

        // Moved to another Latin-1 name: relinked at the next rescan, not missing.
        let moved = f.music.path + "/" + RawFileName.string(Self.folderBytes + Array(" 2".utf8))
        try rename(folder, to: moved)
        let relinked = try runtime.library.rescan()
        #expect(relinked.relinked == 2 && relinked.failureCount == 0, "\(relinked)")
        #expect(try runtime.collection.tracks(albumID: tracks[0].albumID).compactMap(\.path).allSatisfy { $0.hasPrefix(moved + "/") })
    }

    @Test func namesRoundTripAndReadInEachCharset() {
        let bytes: [UInt8] = [0x80, 0x41, 0xA4, 0xE9, 0xC3, 0xA9]  // €/ctrl, A, ¤/€, é (Latin-1), é (UTF-8)
        let text = RawFileName.string(bytes)
        #expect(RawFileName.bytes(text) == bytes && RawFileName.hasEscapes(text))
        #expect(RawFileName.readable(text, charset: .windows1252) == "€A¤éé")
        #expect(RawFileName.readable(text, charset: .latin1) == "\u{80}A¤éé")
        #expect(RawFileName.readable(text, charset: .latin9) == "\u{80}A€éé")
        #expect(RawFileName.string(Array("plain é".utf8)) == "plain é" && !RawFileName.hasEscapes("plain é"))
    }
}
