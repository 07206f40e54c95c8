import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Foundation
import Testing

/// A source that is not LocalFiles: a "tape deck" that lists one folder under its own scheme (or, with `eachFolder`,
/// each folder of the root in name order, not the root's own files). It only lists; Core probes, groups and builds
/// the batches, so it imports like LocalFiles does.
struct TapeDeckSource: ListingSource {
    let name = "tapedeck"
    let schemes = ["tape"]
    var eachFolder = false
    var status: PluginStatus { .available }

    func locate(_ ref: TrackRef) throws -> PlayableLocation { .file(URL(fileURLWithPath: ref.id)) }

    func list(_ root: URL, suffixes: Set<String>, visit: (FolderContents) throws -> Void) throws {
        guard eachFolder else { return try listFolder(root, suffixes: suffixes, visit: visit) }
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            var isFolder: ObjCBool = false
            let folder = root.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            try listFolder(folder, suffixes: suffixes, visit: visit)
        }
    }

    private func listFolder(_ root: URL, suffixes: Set<String>, visit: (FolderContents) throws -> Void) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        var files: [ListedFile] = []
        var skipped = 0
        for name in names {
            let path = root.appendingPathComponent(name).path
            guard suffixes.contains((name as NSString).pathExtension.lowercased()) else { skipped += 1; continue }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let size = (attributes[.size] as? Int).map(Int64.init) ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files.append(ListedFile(path: path, ref: TrackRef(source: "tape", id: path), stamp: FileStamp(size: size, modified: modified)))
        }
        try visit(FolderContents(folder: root.path, files: files, failures: [], filesSeen: names.count, skipped: skipped,
                                 folderImage: nil, isFolder: true))
    }

    func census(_ root: URL, suffixes: Set<String>) -> Int { 0 }
}

/// A source listing `folders` folders of `files` files each, none of them on disk: with every stamp known, Core
/// opens none of them. `empty` names a folder whose last file is new and empty (a failure, found without opening it).
struct ShelfSource: ListingSource {
    let name = "shelf"
    let schemes = ["shelf"]
    var status: PluginStatus { .available }
    var folders = 25, files = 100, empty: Int? = nil

    func path(_ folder: Int, _ file: Int) -> String { "/shelf/\(folder)/\(file).flac" }
    var known: [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        for folder in 0..<folders { for file in 0..<files { out[path(folder, file)] = FileStamp(size: 1_000, modified: 1) } }
        if let empty { out[path(empty, files - 1)] = nil }
        return out
    }

    func locate(_ ref: TrackRef) throws -> PlayableLocation { .file(URL(fileURLWithPath: ref.id)) }

    func list(_ root: URL, suffixes: Set<String>, visit: (FolderContents) throws -> Void) throws {
        for folder in 0..<folders {
            let listed = (0..<files).map { file in
                ListedFile(path: path(folder, file), ref: TrackRef(source: "shelf", id: path(folder, file)),
                           stamp: FileStamp(size: folder == empty && file == files - 1 ? 0 : 1_000, modified: 1))
            }
            try visit(FolderContents(folder: "/shelf/\(folder)", files: listed, failures: [], filesSeen: files, skipped: 0,
                                     folderImage: nil, isFolder: true))
        }
    }

    func census(_ root: URL, suffixes: Set<String>) -> Int { folders * files }
}

@Suite struct FolderScanTests {
    @Test func anyListingSourceImportsThroughCore() throws {
        let dir = try Fixture.temporaryDirectory("crate-tape")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, title) in ["Side A", "Side B"].enumerated() {
            try Fixture.encode(.flac, to: dir.appendingPathComponent("\(i + 1).flac"), frames: 4410,
                               tags: ["title": title, "artist": "The Tapes", "album": "Mixtape", "track": "\(i + 1)"])
        }
        try Data("not audio".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        try Data().write(to: dir.appendingPathComponent("blank.flac"))
        let decoders = try DecoderRegistry(CratePlugins.list.decoders())
        var batches: [ScanBatch] = []
        let summary = try FolderScan(decoders: decoders).scan(TapeDeckSource(), root: dir) { batches.append($0) }

        let tracks = batches.flatMap(\.tracks)
        #expect(tracks.map(\.title) == ["Side A", "Side B"])
        #expect(tracks.allSatisfy { $0.ref.source == "tape" && $0.info.codec == "flac" && $0.info.frames == 4410 })
        // One album, grouped by Core's rules from the tags the decoders read.
        #expect(Set(tracks.map(\.album)).count == 1 && tracks.first?.album.title == "Mixtape")
        #expect(batches.flatMap(\.failures).map(\.reason) == ["file is empty"])
        #expect(summary.folders == 1 && summary.filesSeen == 4 && summary.skipped == 1 && summary.tracksRead == 2)

        // Unchanged files (same stamps) are counted, not opened.
        let stamps = Dictionary(uniqueKeysWithValues: tracks.map { ($0.path, $0.stamp) })
        var again: [ScanBatch] = []
        _ = try FolderScan(decoders: decoders, options: ScanOptions(known: { _ in stamps })).scan(TapeDeckSource(), root: dir) { again.append($0) }
        #expect(again.flatMap(\.tracks).isEmpty && again.first?.unchanged == 2)
    }

    /// The partial content hash is made by the probing threads when asked: the same bytes hash alike (a copy is a
    /// duplicate), other bytes not; unasked, none is made.
    @Test func theProbeHashesContentWhenAsked() throws {
        let dir = try Fixture.temporaryDirectory("crate-tape-hash")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Fixture.encode(.flac, to: dir.appendingPathComponent("1.flac"), frames: 4410, tags: ["title": "One"])
        try FileManager.default.copyItem(at: dir.appendingPathComponent("1.flac"), to: dir.appendingPathComponent("2.flac"))
        try Fixture.encode(.flac, to: dir.appendingPathComponent("3.flac"), frames: 8820, tags: ["title": "Three"])
        let decoders = try DecoderRegistry(CratePlugins.list.decoders())
        var hashed: [ScanBatch] = [], plain: [ScanBatch] = []
        _ = try FolderScan(decoders: decoders, options: ScanOptions(hashContent: true)).scan(TapeDeckSource(), root: dir) { hashed.append($0) }
        _ = try FolderScan(decoders: decoders).scan(TapeDeckSource(), root: dir) { plain.append($0) }

        let hashes = hashed.flatMap(\.tracks).map(\.contentHash)
        #expect(hashes.count == 3 && hashes.allSatisfy { $0?.count == 64 })
        #expect(hashes[0] == hashes[1] && hashes[0] != hashes[2])
        #expect(plain.flatMap(\.tracks).allSatisfy { $0.contentHash == nil })
    }

    /// Folders with nothing new go to the importer together, not one batch each (a no-change rescan of 100,000 files
    /// handed 13,000 batches from thread to thread); a folder with something to say keeps its own batch, in order.
    @Test func foldersWithNothingNewTravelTogether() throws {
        let decoders = try DecoderRegistry(CratePlugins.list.decoders())
        let shelf = ShelfSource(empty: 10)
        let known = shelf.known
        var batches: [ScanBatch] = []
        let summary = try FolderScan(decoders: decoders, options: ScanOptions(known: { _ in known }))
            .scan(shelf, root: URL(fileURLWithPath: "/shelf")) { batches.append($0) }
        // Folders 0-9 (1,000 files), folder 10 with its failure, folders 11-20 (1,000), folders 21-24 (400).
        #expect(batches.map(\.unchanged) == [1_000, 99, 1_000, 400], "\(batches.map(\.unchanged))")
        #expect(batches.map(\.folder) == ["/shelf/9", "/shelf/10", "/shelf/20", "/shelf/24"])
        #expect(batches[1].failures.map(\.reason) == ["file is empty"] && batches.allSatisfy(\.tracks.isEmpty))
        #expect(batches.map(\.fileCount).reduce(0, +) == 2_500)
        #expect(summary.folders == 25 && summary.unchanged == 2_499 && summary.failures == 1)
    }
    /// Several folders are probed at once (`FolderScan.foldersInFlight`): their batches still come in the listing's
    /// order, each with its own files and failures, however quickly a later folder's probes end; a batch the importer
    /// refuses ends the scan with its error, and no folder after it is handed over.
    @Test func foldersProbedTogetherComeBackInTheirOrder() throws {
        let dir = try Fixture.temporaryDirectory("crate-tape-shelf")
        defer { try? FileManager.default.removeItem(at: dir) }
        let seed = dir.appendingPathComponent("seed.flac")
        try Fixture.encode(.flac, to: seed, frames: 4410, tags: ["title": "Take", "artist": "The Tapes", "album": "Takes"])
        // The first folder is the slowest to probe: later ones end first.
        let counts = [24, 1, 2, 1, 3, 1, 1, 2, 1, 1]
        let folders = counts.indices.map { dir.appendingPathComponent(String(format: "f%02d", $0)) }
        for (folder, count) in zip(folders, counts) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for n in 1...count { try FileManager.default.copyItem(at: seed, to: folder.appendingPathComponent("\(n).flac")) }
        }
        try Data("not a flac stream".utf8).write(to: folders[3].appendingPathComponent("broken.flac"))
        let decoders = try DecoderRegistry(CratePlugins.list.decoders())
        var batches: [ScanBatch] = []
        let summary = try FolderScan(decoders: decoders).scan(TapeDeckSource(eachFolder: true), root: dir) { batches.append($0) }

        #expect(batches.map(\.folder) == folders.map(\.path))
        #expect(batches.map(\.tracks.count) == counts)
        #expect(batches.allSatisfy { batch in batch.tracks.allSatisfy { $0.path.hasPrefix(batch.folder + "/") } })
        #expect(batches.map(\.failures.count) == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        #expect(batches[3].failures.first?.path.hasSuffix("f03/broken.flac") == true)
        #expect(summary.folders == 10 && summary.tracksRead == counts.reduce(0, +) && summary.failures == 1)

        struct Refused: Error {}
        var handed: [String] = []
        #expect(throws: Refused.self) {
            try FolderScan(decoders: decoders).scan(TapeDeckSource(eachFolder: true), root: dir) { batch in
                handed.append(batch.folder)
                if handed.count == 2 { throw Refused() }
            }
        }
        #expect(handed == folders.prefix(2).map(\.path))
    }
}
