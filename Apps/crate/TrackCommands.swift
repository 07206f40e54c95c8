import ArgumentParser
import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import CrateClient

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Correct a track's metadata (files Crate copied only).",
        discussion: """
            Edits are kept in the library, never written to the file. Lists, search and playback show them; \
            albums and artists stay grouped by the file's own tags. TRACK is a track id (see `crate tracks ALBUM`).
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Track id.") var track: Int64
    @Option var title: String?
    @Option var artist: String?
    @Option var album: String?
    @Option var albumArtist: String?
    @Option var genre: String?
    @Option var date: String?
    @Option(name: .customLong("track-number")) var trackNumber: Int?
    @Option(name: .customLong("disc-number")) var discNumber: Int?
    @Option(name: .customLong("reset"), help: "Return a field to the file's tag (repeatable): \(TrackEdit.fields.joined(separator: ", ")).")
    var reset: [String] = []
    @Flag(help: "Return every field to the file's tags.") var resetAll = false
    @Flag(help: "Print the track as JSON.") var json = false

    func run() async throws {
        let edit = TrackEdit(title: title, artist: artist, album: album, albumArtist: albumArtist, genre: genre, date: date,
                             trackNumber: trackNumber, discNumber: discNumber, clear: resetAll ? TrackEdit.fields : reset)
        guard !edit.isEmpty else { throw ValidationError("nothing to change: give --title, --artist, ... or --reset FIELD") }
        let backend = try await options.backend()
        let t = try await userFacingAsync { try await backend.edit(track: track, edit) }
        if json { return try printJSON(t) }
        print("\(t.id)  \(t.trackNumber.map { "\($0). " } ?? "")\(t.title) — \(t.artist)  [\(t.album), \(t.albumArtist)]\(t.edited ? "  (edited)" : "")")
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove tracks from the library.",
        discussion: "Files Crate copied into its library are deleted with them; files imported by reference are left on disk.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Track ids.") var tracks: [Int64]

    func run() async throws {
        let deleted = try await deleteTracks(options, tracks)
        print("removed \(tracks.count) track\(tracks.count == 1 ? "" : "s") from the library; deleted \(deleted.count) library file\(deleted.count == 1 ? "" : "s")")
        for path in deleted { print("  deleted \(RawFileName.readable(path))") }
    }
}

struct Missing: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "missing",
        abstract: "Tracks whose file is gone or unreadable; relink or delete them.",
        subcommands: [MissingList.self, Relink.self, MissingDelete.self], defaultSubcommand: MissingList.self)
}

struct MissingList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List missing tracks (the default).")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Check every library file first (as a rescan does).") var check = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        // Checking updates the missing flags: a write (the daemon checks at every rescan).
        let runtime = try await options.runtime(check ? .write : .read)
        if check { _ = try userFacing { try runtime.library.checkMissing() } }
        let missing = try userFacing { try runtime.library.missingTracks() }
        if json { return try printJSON(missing) }
        if missing.isEmpty { return print("No missing tracks.") }
        for m in missing {
            print("\(pad(String(m.track.id), 6))\(m.reason.rawValue)  \(m.track.artist) — \(m.track.title)  \(m.detail ?? m.track.path.map { RawFileName.readable($0) } ?? "")")
        }
        print("`crate missing relink TRACK PATH` points a track at its file; `crate missing delete TRACK…` removes it")
    }
}

struct Relink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "relink", abstract: "Point a track at its file's new place.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Track id.") var track: Int64
    @Argument(help: "The file's new path.") var path: String

    func run() async throws {
        let request = API.Relink(path: URL(fileURLWithPath: path).standardizedFileURL.path)
        let backend = try await options.backend()
        let t = try await userFacingAsync { try await backend.relink(track: track, request) }
        print("relinked \(t.id) \(t.title) -> \(t.path.map { RawFileName.readable($0) } ?? "")")
    }
}

struct MissingDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove missing tracks from the library.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Track ids (see `crate missing`).") var tracks: [Int64] = []
    @Flag(help: "Every missing track.") var all = false

    func run() async throws {
        let runtime = try await options.runtime()
        let ids = try userFacing { all ? try runtime.library.missingTracks().map(\.track.id) : tracks }
        guard !ids.isEmpty else { throw ValidationError("give track ids or --all") }
        let missing = Set(try userFacing { try runtime.library.missingTracks().map(\.track.id) })
        if let notMissing = ids.first(where: { !missing.contains($0) }) {
            throw CLIError("track \(notMissing) is not missing; use `crate delete` to remove a playable track")
        }
        let deleted = try await deleteTracks(options, ids)
        print("removed \(ids.count) missing track\(ids.count == 1 ? "" : "s")\(deleted.isEmpty ? "" : "; deleted \(deleted.count) library files")")
    }
}

/// Removes tracks through the command's backend; the library files deleted with them.
func deleteTracks(_ options: GlobalOptions, _ ids: [Int64]) async throws -> [String] {
    let backend = try await options.backend()
    return try await userFacingAsync { try await backend.deleteTracks(ids) }
}
