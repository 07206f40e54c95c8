import CrateCore
import CrateDomain
import Foundation

/// Stored playlists (Crate's playlists, by name) and the `favorite` sticker (Crate's favorite tracks). Every change
/// goes through Core's collection, which publishes the library event, so MPD clients idle on `stored_playlist` or
/// `sticker` and the web page both hear of it.
extension MPDCommands {
    func runPlaylists(_ name: String, _ args: [String]) async throws -> String? {
        switch name {
        case "listplaylists":
            return try playlistLines()
        case "listplaylist", "listplaylistinfo":
            var entries = try collection.playlistEntries(id: try playlist(named: try Self.argument(args, 0)).id)
            if let range = try Self.optionalRange(args, 1) {
                entries = Array(entries[min(range.lowerBound, entries.count)..<min(range.upperBound, entries.count)])
            }
            let folders = try library.musicFolders()
            return entries.map { entry in
                let uri = MPDSongText.uri(entry.track, folders: folders)
                return name == "listplaylist" ? "file: \(MPDArguments.value(uri))\n" : MPDSongText.song(entry.track, uri: uri, tags: tags)
            }.joined()
        case "load":
            var ids = try collection.playlistEntries(id: try playlist(named: try Self.argument(args, 0)).id).map(\.track.id)
            if let range = try Self.optionalRange(args, 1) {
                ids = Array(ids[min(range.lowerBound, ids.count)..<min(range.upperBound, ids.count)])
            }
            let position = try Self.optionalNumber(args, 2)
            if !ids.isEmpty { _ = try await player.add(ids, at: position.map { $0 + 1 }) }
        case "save":
            let playlistName = try Self.argument(args, 0)
            let mode = args.count > 1 ? args[1] : "create"
            let queued = try await player.queue(offset: 0, limit: Int(Int32.max)).map(\.track.id)
            // One write, so idle clients hear one stored_playlist change.
            switch (mode, try existingPlaylist(playlistName)) {
            case ("create", nil), ("append", nil), ("replace", nil): _ = try made(playlistName, trackIDs: queued)
            case ("create", _?): throw MPDError(.exist, "Playlist already exists")
            case ("append", let found?): try collection.addToPlaylist(id: found.id, trackIDs: queued)
            case ("replace", let found?): try collection.replacePlaylistTracks(id: found.id, with: queued)
            default: throw MPDError(.argument, "Unrecognized save mode: \(mode)")
            }
        case "rm":
            let found = try playlist(named: try Self.argument(args, 0))
            try collection.deletePlaylist(id: found.id)
        case "rename":
            let found = try playlist(named: try Self.argument(args, 0))
            let newName = try Self.argument(args, 1)
            if let other = try existingPlaylist(newName), other.id != found.id {
                throw MPDError(.exist, "Playlist exists already")
            }
            try collection.renamePlaylist(id: found.id, to: newName)
        case "playlistadd":
            let playlistName = try Self.argument(args, 0)
            let ids = try await trackIDs(at: try Self.argument(args, 1))
            let position = try Self.optionalNumber(args, 2)
            // As MPD, adding to a playlist that does not exist makes it.
            if let id = try existingPlaylist(playlistName)?.id {
                try collection.addToPlaylist(id: id, trackIDs: ids, at: position.map { $0 + 1 })
            } else {
                _ = try made(playlistName, trackIDs: ids)
            }
        case "playlistclear":
            let id = try playlist(named: try Self.argument(args, 0)).id
            try collection.clearPlaylist(id: id)
        case "playlistdelete":
            let found = try playlist(named: try Self.argument(args, 0))
            guard let range = try Self.optionalRange(args, 1) else { throw MPDError(.argument, "too few arguments") }
            let upper = min(range.upperBound, found.trackCount)
            guard range.lowerBound < found.trackCount, upper > range.lowerBound else { throw MPDError(.argument, "Bad song index") }
            try collection.removeFromPlaylist(id: found.id, at: Array(range.lowerBound + 1...upper))
        case "playlistmove":
            let found = try playlist(named: try Self.argument(args, 0))
            let from = try Self.number(args, 1), to = try Self.number(args, 2)
            guard from < found.trackCount, to < found.trackCount else { throw MPDError(.argument, "Bad song index") }
            try collection.movePlaylistEntry(id: found.id, from: from + 1, to: to + 1)
        case "sticker":
            return try await sticker(args)
        default:
            return nil
        }
        return ""
    }

    /// Each stored playlist: `playlist:` and `Last-Modified:`.
    func playlistLines() throws -> String {
        try collection.playlists().map {
            "playlist: \(MPDArguments.value($0.name))\nLast-Modified: \(Self.timestamp($0.updatedAt))\n"
        }.joined()
    }

    /// The playlist named `name`, if any (Crate's names are unique without regard to case, so there is one at most).
    private func existingPlaylist(_ name: String) throws -> Playlist? {
        try collection.playlists().first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    private func playlist(named name: String) throws -> Playlist {
        guard let found = try existingPlaylist(name) else { throw MPDError(.noExist, "No such playlist") }
        return found
    }

    private func made(_ name: String, trackIDs: [Int64] = []) throws -> Int64 {
        do { return try collection.createPlaylist(name: name, trackIDs: trackIDs).id } catch let error as StoreError {
            throw MPDError(.argument, error.description)
        }
    }


    /// The tracks a URI names: a song, every song under a folder, or a stream's URL.
    func trackIDs(at uri: String) async throws -> [Int64] {
        if let scheme = URL(string: uri)?.scheme?.lowercased(), uri.contains("://") {
            guard ["http", "https"].contains(scheme) else { throw MPDError(.argument, "Unsupported URI scheme") }
            return [try await player.streamTrack(uri)]
        }
        let songs = try database.snapshot().songs(under: Self.folder(uri))
        guard !songs.isEmpty else { throw MPDError(.noExist, "No such directory") }
        return songs.map(\.track.id)
    }

    /// `sticker get|set|delete|list|find song URI [favorite [VALUE]]`: Crate's one sticker is `favorite` (value 1).
    private func sticker(_ args: [String]) async throws -> String {
        let verb = try Self.argument(args, 0)
        guard try Self.argument(args, 1) == "song" else { throw MPDError(.argument, "unknown sticker domain") }
        let uri = try Self.argument(args, 2)
        if verb == "find" {
            guard try Self.argument(args, 3) == "favorite" else { return "" }
            let favorites = Set(try collection.favoriteTracks().map(\.id))
            return try database.snapshot().songs(under: Self.folder(uri)).filter { favorites.contains($0.track.id) }
                .map { "file: \(MPDArguments.value($0.uri))\nsticker: favorite=1\n" }.joined()
        }
        let snapshot = try database.snapshot()
        guard let index = snapshot.byURI[uri] else { throw MPDError(.noExist, "No such song") }
        let track = snapshot.songs[index].track.id
        let favorite = try collection.opinion(.track, id: track) == .favorite
        switch verb {
        case "list":
            return favorite ? "sticker: favorite=1\n" : ""
        case "get":
            guard try Self.argument(args, 3) == "favorite", favorite else { throw MPDError(.noExist, "no such sticker") }
            return "sticker: favorite=1\n"
        case "set":
            guard try Self.argument(args, 3) == "favorite" else {
                throw MPDError(.argument, "Crate keeps one sticker, \"favorite\" (1 marks a favorite song)")
            }
            switch try Self.argument(args, 4) {
            case "1": try setFavorite(track, true)
            case "0": if favorite { try setFavorite(track, false) }
            case let other: throw MPDError(.argument, "the favorite sticker is 1 or 0, not \(other)")
            }
        case "delete":
            if args.count > 3, args[3] != "favorite" { throw MPDError(.noExist, "no such sticker") }
            guard favorite else { throw MPDError(.noExist, "no such sticker") }
            try setFavorite(track, false)
        default:
            throw MPDError(.argument, "bad request")
        }
        return ""
    }

    private func setFavorite(_ track: Int64, _ on: Bool) throws {
        try collection.setOpinion(.track, id: track, on ? .favorite : nil)
    }

    /// MPD's `Last-Modified` form: ISO 8601 in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        date.ISO8601Format()
    }
}
