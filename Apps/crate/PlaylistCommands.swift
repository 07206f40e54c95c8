import ArgumentParser
import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import CrateClient

struct PlaylistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract: "Playlists: create, rename, delete, add, remove, reorder, import and export .m3u, play.",
        discussion: "PLAYLIST is an id or a name; \"Favorites\" is the playlist of favorite tracks.",
        subcommands: [PlaylistList.self, PlaylistShow.self, PlaylistCreate.self, PlaylistRename.self, PlaylistDelete.self,
                      PlaylistAdd.self, PlaylistRemove.self, PlaylistMove.self, PlaylistImport.self, PlaylistExport.self,
                      PlaylistPlay.self],
        defaultSubcommand: PlaylistList.self)
}

/// The playlist a user named; nil for the Favorites pseudo-playlist.
func resolvePlaylist(_ text: String, _ store: MusicCollection, allowFavorites: Bool = true) throws -> Playlist? {
    if text.caseInsensitiveCompare(Playlist.favoritesName) == .orderedSame {
        guard allowFavorites else { throw CLIError("Favorites follows the favorite tracks; change it with `crate fav track ID`") }
        return nil
    }
    return try store.resolvePlaylist(text)
}

/// Finds a real playlist (not Favorites) by id or name, reading the library read-only.
func findPlaylist(_ options: GlobalOptions, _ name: String) async throws -> Playlist {
    let store = try await options.runtime().collection
    return try userFacing {
        guard let found = try resolvePlaylist(name, store, allowFavorites: false) else { throw CLIError("not a playlist: \(name)") }
        return found
    }
}

/// One change to a playlist, through the command's backend (crated when it runs, so every client hears it).
func editPlaylist<T>(_ options: GlobalOptions, _ change: (any CrateBackend) async throws -> T) async throws -> T {
    let backend = try await options.backend()
    return try await userFacingAsync { try await change(backend) }
}

struct PlaylistList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List playlists (the default).")
    @OptionGroup var options: GlobalOptions
    @Option(help: "title, created, last_played or updated.") var sort: PlaylistSort = .title
    @OptionGroup var order: SortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        let (lists, favorites) = try userFacing { (try store.playlists(sort: order.sort(sort)), try store.favoriteTracks()) }
        if json { return try printJSON(lists) }
        print("    -  \(Playlist.favoritesName)  [\(favorites.count) tracks, \(clock(favorites.reduce(0) { $0 + $1.duration }))]")
        lists.forEach { print(Line.playlist($0)) }
    }
}

struct PlaylistShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "A playlist's tracks.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Option(help: "manual (default), title, artist, album, year or added.") var sort: PlaylistTrackSort = .manual
    @OptionGroup var order: SortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        let (found, entries) = try userFacing { () -> (Playlist?, [PlaylistEntry]) in
            guard let found = try resolvePlaylist(playlist, store) else {
                let tracks = try store.favoriteTracks()
                return (nil, tracks.enumerated().map { PlaylistEntry(position: $0 + 1, track: $1, addedAt: Date()) })
            }
            return (found, try store.playlistEntries(id: found.id, sort: order.sort(sort)))
        }
        if json { return try printJSON(entries) }
        print(found.map(Line.playlist) ?? Playlist.favoritesName)
        entries.forEach { print(Line.track($0.track, number: String($0.position))) }
    }
}

struct PlaylistCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an empty playlist.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Its name.") var name: [String]
    func run() async throws {
        let name = name.joined(separator: " ")
        let id = try await editPlaylist(options) { try await $0.createPlaylist(name) }
        print("Created playlist \(id): \(name)")
    }
}

struct PlaylistRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a playlist.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Argument(help: "The new name.") var name: [String]
    func run() async throws {
        let found = try await findPlaylist(options, playlist)
        try await editPlaylist(options) { try await $0.renamePlaylist(found.id, to: name.joined(separator: " ")) }
        print("Renamed.")
    }
}

struct PlaylistDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a playlist (its tracks stay in the library).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    func run() async throws {
        let found = try await findPlaylist(options, playlist)
        try await editPlaylist(options) { try await $0.deletePlaylist(found.id) }
        print("Deleted playlist \(found.name).")
    }
}

struct PlaylistAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add tracks (by id) or a whole album; duplicates are allowed.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Argument(help: "Track ids.") var tracks: [Int64] = []
    @Option(help: "Add this album's tracks in album order (id, title, or words).") var album: [String] = []
    @Option(help: "Insert at this place (1 = first; default: the end).") var at: Int?
    func run() async throws {
        let found = try await findPlaylist(options, playlist)
        let store = try await options.runtime().collection
        let ids = try userFacing {
            var ids = tracks
            for a in album { ids += try store.tracks(albumID: try store.resolveAlbum(a).id).map(\.id) }
            return ids
        }
        guard !ids.isEmpty else { throw CLIError("give track ids or --album ALBUM") }
        try await editPlaylist(options) { try await $0.addToPlaylist(found.id, API.PlaylistAdd(trackIDs: ids, index: at)) }
        print("Added \(ids.count) tracks.")
    }
}

struct PlaylistRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove tracks by their place in the playlist.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Argument(help: "Places (1 = first), as `crate playlist show` numbers them.") var positions: [Int]
    func run() async throws {
        let found = try await findPlaylist(options, playlist)
        try await editPlaylist(options) { try await $0.removeFromPlaylist(found.id, API.PlaylistRemove(positions: positions)) }
        print("Removed \(positions.count) tracks.")
    }
}

struct PlaylistMove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move the track at FROM to TO.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Argument var from: Int
    @Argument var to: Int
    func run() async throws {
        let found = try await findPlaylist(options, playlist)
        try await editPlaylist(options) { try await $0.movePlaylistEntry(found.id, API.Move(from: from, to: to)) }
        print("Moved \(from) to \(to).")
    }
}

struct PlaylistImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import an .m3u/.m3u8 playlist; entries are matched to library tracks by path.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The playlist file.") var file: String
    @Option(help: "The playlist's name (default: the file's name).") var name: String?
    @Flag(help: "Overwrite the tracks of a playlist with the same name.") var replace = false
    @Flag(help: "Print JSON.") var json = false
    func run() async throws {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let report: PlaylistImportReport
        let taken = "a playlist named '\(name ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)' exists "
            + "already; use --replace to overwrite its tracks or --name to pick another name"
        let backend = try await options.backend()
        do {
            report = try await backend.importPlaylist(API.PlaylistImport(path: path, name: name, replace: replace))
        } catch FindingError.playlistExists {
            throw CLIError(taken)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(ErrorText.describe(error))
        }
        if json { return try printJSON(report) }
        let byTags = report.matchedByTags > 0 ? " (\(report.matchedByTags) by artist, title and length: their paths are not here)" : ""
        print("Playlist \(report.playlist.id): \(report.playlist.name) — \(counted(report.added, "track")) added\(byTags), "
              + "\(report.skipped.count) skipped")
        report.skipped.prefix(20).forEach { print("  skipped \($0.location): \($0.reason)") }
        if report.skipped.count > 20 { print("  … and \(report.skipped.count - 20) more (--json lists all)") }
    }
}

struct PlaylistExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write a playlist as .m3u/.m3u8 (UTF-8, absolute paths).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Argument(help: "The file to write; - for standard output.") var file: String
    func run() async throws {
        let runtime = try await options.runtime()
        let id = try userFacing { try resolvePlaylist(playlist, runtime.collection)?.id }
        if file == "-" { return print(try userFacing { try runtime.playlistFiles.m3u(id) }, terminator: "") }
        let count = try userFacing { try runtime.playlistFiles.exportM3U(id, to: URL(fileURLWithPath: file)) }
        print("Wrote \(count) tracks to \(file).")
    }
}

struct PlaylistPlay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play a playlist through the daemon (replaces the queue).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "Playlist id or name.") var playlist: String
    @Option(help: "Start at this track (1 = first).") var from = 1
    func run() async throws {
        let client = try await options.runningClient()
        let runtime = try await options.global.runtime()
        let id = try userFacing { try resolvePlaylist(playlist, runtime.collection)?.id }
        let path = id.map { "playlists/\($0)/play" } ?? "favorites/play"
        try options.show(try await client.command(path, API.PlayFrom(from: from)))
    }
}
