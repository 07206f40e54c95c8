import ArgumentParser
import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import CrateClient

struct Library: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Library maintenance: status and diagnostics, orphaned files, database repair, artwork repair.",
        subcommands: [LibraryStatus.self, Cleanup.self, Repair.self, ArtworkRepair.self], defaultSubcommand: LibraryStatus.self)
}

struct LibraryStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Import mode, storage sizes and counts (the default).")

    struct Output: Encodable {
        var importMode: ImportMode
        var deleteOriginals: Bool
        var libraryFolder: String
        var importFolder: String
        var storage: StorageSizes
        var diagnostics: LibraryDiagnostics
        /// Files in the library folder no track refers to (an interrupted import's partial or uncommitted copies).
        var leftovers: Int
    }

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        let lib = runtime.library
        let out = Output(importMode: lib.currentImportMode(), deleteOriginals: runtime.settings.deleteOriginals,
                         libraryFolder: runtime.settings.libraryFolder.path, importFolder: runtime.settings.importFolder.path,
                         storage: lib.storageSizes(), diagnostics: try userFacing { try lib.diagnostics() },
                         leftovers: try userFacing { try lib.cleanOrphans(dryRun: true).count })
        if json { return try printJSON(out) }
        let d = out.diagnostics, s = out.storage
        let leftovers = out.leftovers == 0 ? ""
            : "; \(counted(out.leftovers, "file")) no track refers to (crate library cleanup removes them)"
        print("""
            import mode       \(out.importMode.rawValue)\(out.importMode == .copyThenDelete ? (out.deleteOriginals ? " (deleting originals allowed)" : " (originals kept: deletion not allowed)") : "")
            library folder    \(out.libraryFolder)  \(bytes(s.libraryBytes)) in \(counted(s.libraryFiles, "file"))\(leftovers)
            import folder     \(out.importFolder)  \(bytes(s.importFolderBytes))
            database          \(bytes(s.databaseBytes))
            artwork           \(bytes(s.artworkBytes)) (\(d.artwork) pictures; \(d.tracksWithoutArtwork) tracks without)
            tracks \(d.tracks), albums \(d.albums), artists \(d.artists), queue \(d.queueEntries), history \(d.historyEntries), \
            playback positions \(d.playbackPositions), player state \(d.playerStateSaved ? "saved" : "none")
            files by mode     \(d.filesByMode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            missing           \(d.missing.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            import records \(d.importRecords), failures \(d.importFailures), overrides \(d.overrides), rescan roots \(d.libraryRoots)
            playlists \(d.playlists) (\(d.playlistEntries) entries), favorites \(d.favorites), dislikes \(d.dislikes), \
            lyrics \(d.lyrics), recent items \(d.recentItems), plays \(d.plays)
            """)
    }
}

struct Cleanup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cleanup", abstract: "Delete files in Crate's library folder that no track refers to.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Only list them.") var dryRun = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let backend = try await options.backend(dryRun ? .read : .write)
        let result = try await userFacingAsync { try await backend.cleanup(API.Cleanup(dryRun: dryRun)) }
        if json { return try printJSON(result) }
        for p in result.paths { print("  \(dryRun ? "orphan" : "deleted"): \(p)") }
        print("\(result.count) orphaned files (\(bytes(result.bytes)))\(dryRun ? "; run without --dry-run to delete them" : " deleted")")
    }
}

struct Repair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "repair", abstract: "Remove database rows that point at nothing (queue, history, positions, overrides, artwork).")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let backend = try await options.backend()
        let report = try await userFacingAsync { try await backend.repair() }
        if json { return try printJSON(report) }
        if report.removed.isEmpty && report.artworkFilesDeleted == 0 && report.artworkFilesMissing == 0 {
            return print("Nothing to repair.")
        }
        for (kind, n) in report.removed.sorted(by: { $0.key < $1.key }) { print("  \(kind): \(n)") }
        if report.artworkFilesDeleted > 0 { print("  unused artwork files deleted: \(report.artworkFilesDeleted)") }
        if report.artworkFilesMissing > 0 { print("  artwork files gone (to be found again): \(report.artworkFilesMissing)") }
    }
}

struct ArtworkRepair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "artwork", abstract: "Look for artwork of tracks that have none (the daemon does this at launch).")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Tracks to look at, at most.") var limit = 500
    @Flag(help: "Look again at tracks already looked at that have no artwork (after adding cover files).") var recheck = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        // The daemon repairs artwork at launch; by hand it is a write beside no daemon.
        let runtime = try await options.runtime(.write)
        if recheck { _ = try userFacing { try runtime.collection.resetArtworkChecks() } }
        let status = runtime.library.repairArtwork(limit: limit, pause: 0)
        if json { return try printJSON(status) }
        if let message = status.message { throw CLIError(message) }
        print("artwork: looked at \(status.checked) tracks, found \(status.filled); \(status.remaining) still to look at")
    }
}

/// 1.2 MB style sizes; "0 bytes", never "Zero KB".
func bytes(_ n: Int64) -> String {
    let formatter = ByteCountFormatter()
    formatter.countStyle = .file
    formatter.allowsNonnumericFormatting = false
    return formatter.string(fromByteCount: n)
}

/// "1 album", "2 albums": a count with its noun in the right number.
func counted(_ n: Int, _ noun: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
}
