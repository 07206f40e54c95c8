import CrateCore
import CrateDomain
import Foundation

/// The database commands: browsing by folder, finding by tags, listing tag values, adding to the queue by URI.
extension MPDCommands {
    func runDatabase(_ name: String, _ args: [String]) async throws -> String? {
        switch name {
        case "lsinfo": return try lsinfo(args.first ?? "")
        case "listall", "listallinfo":
            let songs = try database.snapshot().songs(under: Self.folder(args.first ?? ""))
            guard !songs.isEmpty || (args.first ?? "").isEmpty else { throw MPDError(.noExist, "No such directory") }
            var out = "", seen = Set<String>()
            for song in songs {
                // Each folder on the way to the song, once, before its first song (as MPD walks its tree).
                var path = ""
                for part in song.uri.split(separator: "/").dropLast() {
                    path += path.isEmpty ? String(part) : "/" + part
                    if seen.insert(path).inserted { out += "directory: \(MPDArguments.value(path))\n" }
                }
                out += name == "listall" ? "file: \(MPDArguments.value(song.uri))\n" : MPDSongText.song(song.track, uri: song.uri, tags: tags)
            }
            return out
        case "find", "search":
            return try found(args, caseless: name == "search").map { MPDSongText.song($0.track, uri: $0.uri, tags: tags) }.joined()
        case "findadd", "searchadd":
            let songs = try found(args, caseless: name == "searchadd")
            if !songs.isEmpty { _ = try await player.add(songs.map(\.track.id)) }
            return ""
        case "add":
            let ids = try await trackIDs(at: try Self.argument(args, 0))
            let position = try Self.optionalNumber(args, 1)
            _ = try await player.add(ids, at: position.map { $0 + 1 })
            return ""
        case "addid":
            let uri = try Self.argument(args, 0)
            let snapshot = try database.snapshot()
            // One song or one stream: a folder is for `add`.
            guard snapshot.byURI[uri] != nil || uri.contains("://") else { throw MPDError(.noExist, "No such song") }
            let position = try Self.optionalNumber(args, 1)
            let ids = try await player.add(try await trackIDs(at: uri), at: position.map { $0 + 1 })
            return ids.first.map { "Id: \($0)\n" } ?? ""
        case "count":
            // `count [FILTER] [group TAG]`: totals, or totals per value of TAG (songs without it under "").
            var rest = args, group: String?
            if rest.count >= 2, rest[rest.count - 2] == "group" {
                group = rest[rest.count - 1].lowercased()
                rest.removeLast(2)
            }
            let songs = rest.isEmpty ? Array(try database.snapshot().songs) : try found(rest, caseless: false)
            func totals(_ songs: [MPDDatabase.Song]) -> String {
                "songs: \(songs.count)\nplaytime: \(Int(songs.reduce(0) { $0 + $1.track.duration }.rounded()))\n"
            }
            guard let group else { return totals(songs) }
            guard MPDFilter.tags.contains(group), group != "any" else { throw MPDError(.argument, "Unknown group tag") }
            let grouped = Dictionary(grouping: songs) { MPDFilter.values(group, of: $0).first ?? "" }
            return grouped.keys.sorted().map { "\(Self.tagName(group)): \(MPDArguments.value($0))\n" + totals(grouped[$0] ?? []) }.joined()
        case "list":
            return try list(args)
        default:
            return nil
        }
    }

    /// A URI as a folder prefix: "" (the root) and "/" mean the whole library.
    static func folder(_ uri: String) -> String { uri == "/" ? "" : uri }

    /// The songs a filter means, with MPD's `sort TAG` and `window START:END` after it.
    private func found(_ args: [String], caseless: Bool) throws -> [MPDDatabase.Song] {
        var args = args, sortTag: String?, window: Range<Int>?
        while args.count >= 3 || (args.count >= 2 && args[0].hasPrefix("(")) {
            let key = args[args.count - 2]
            if key == "sort" {
                sortTag = args[args.count - 1].lowercased()
            } else if key == "window" {
                window = try Self.optionalRange([args[args.count - 1]], 0)
            } else {
                break
            }
            args.removeLast(2)
        }
        let filter = try MPDFilter.parse(args, caseless: caseless)
        var songs = try database.snapshot().songs.filter { filter.matches($0, caseless: caseless) }
        if var tag = sortTag {
            let descending = tag.hasPrefix("-")
            if descending { tag.removeFirst() }
            guard MPDFilter.tags.contains(tag) else { throw MPDError(.argument, "Unknown sort tag") }
            songs.sort {
                let a = MPDFilter.values(tag, of: $0).first ?? "", b = MPDFilter.values(tag, of: $1).first ?? ""
                return descending ? a > b : a < b
            }
        }
        if let window { songs = Array(songs[min(window.lowerBound, songs.count)..<min(window.upperBound, songs.count)]) }
        return songs
    }

    /// `lsinfo [URI]`: the folders and songs directly in a folder, or one song.
    private func lsinfo(_ uri: String) throws -> String {
        let snapshot = try database.snapshot()
        let folder = Self.folder(uri)
        if let i = snapshot.byURI[folder] { return MPDSongText.song(snapshot.songs[i].track, uri: folder, tags: tags) }
        let songs = snapshot.songs(under: folder)
        guard !songs.isEmpty || folder.isEmpty else { throw MPDError(.noExist, "No such directory") }
        let prefix = folder.isEmpty ? "" : folder + "/"
        var out = "", folders = Set<String>()
        for song in songs {
            let rest = song.uri.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") {
                let sub = prefix + rest[..<slash]
                if folders.insert(sub).inserted { out += "directory: \(MPDArguments.value(sub))\n" }
            } else {
                out += MPDSongText.song(song.track, uri: song.uri, tags: tags)
            }
        }
        // The root also lists the stored playlists, as MPD's does (mpc's lsplaylists reads them there).
        if folder.isEmpty { out += try playlistLines() }
        return out
    }

    /// `list TAG [FILTER] [group TAG …]`: each value of TAG once, sorted; grouped by the group tags' values.
    private func list(_ args: [String]) throws -> String {
        let tag = try Self.argument(args, 0).lowercased()
        guard MPDFilter.tags.contains(tag), tag != "any" else { throw MPDError(.argument, "Unknown tag type: \(args[0])") }
        var rest = Array(args.dropFirst()), groups: [String] = []
        while rest.count >= 2, rest[rest.count - 2] == "group" {
            groups.insert(rest[rest.count - 1].lowercased(), at: 0)
            rest.removeLast(2)
        }
        guard groups.allSatisfy(MPDFilter.tags.contains) else { throw MPDError(.argument, "Unknown group tag") }
        // The old `list album ARTIST` form: one value after `album` is the artist.
        if tag == "album", rest.count == 1, !rest[0].hasPrefix("(") { rest = ["artist", rest[0]] }
        let filter = rest.isEmpty ? nil : try MPDFilter.parse(rest, caseless: false)
        var rows = Set<[String]>()
        for song in try database.snapshot().songs where filter?.matches(song, caseless: false) ?? true {
            let groupValues = groups.map { MPDFilter.values($0, of: song).first ?? "" }
            // A song without the tag counts under "" (MPD lists that empty value too).
            let values = MPDFilter.values(tag, of: song)
            for value in values.isEmpty ? [""] : values { rows.insert(groupValues + [value]) }
        }
        let names = (groups + [tag]).map(Self.tagName)
        var out = "", previous: [String]?
        for row in rows.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            // A group's line once, before the first value in it; the listed tag's value on every row.
            let changed = (0..<groups.count).first { i in previous.map { Array($0.prefix(i + 1)) != Array(row.prefix(i + 1)) } ?? true }
            for i in (changed ?? groups.count)..<row.count { out += "\(names[i]): \(MPDArguments.value(row[i]))\n" }
            previous = row
        }
        return out
    }

    /// A tag's name as MPD writes it in replies.
    static func tagName(_ tag: String) -> String {
        switch tag {
        case "albumartist": "AlbumArtist"
        case "file": "file"
        default: tag.prefix(1).uppercased() + tag.dropFirst()
        }
    }
}
