import CrateCore
import CrateDomain
import Foundation

/// The MPD commands Crate answers, over the same player as the HTTP API. Each returns its response lines (without
/// the final `OK`); a failure is an `MPDError`. Anything not listed in `names` is `ACK [5@0] {cmd} unknown command`.
struct MPDCommands: Sendable {
    let player: PlayerService
    let library: LibraryService
    let database: MPDDatabase
    let playlistVersion: MPDPlaylistVersion
    /// When the front end started, for `stats`.
    let started = Date()

    /// In MPD's order of `commands`' output (alphabetical).
    static let names: [String] = (playerNames + databaseNames).sorted()
    static let playerNames: [String] = [
        "clear", "close", "commands", "consume", "crossfade", "currentsong", "delete", "deleteid", "getvol", "idle",
        "move", "next", "noidle", "notcommands", "outputs", "password", "pause", "ping", "play", "playid",
        "playlistid", "playlistinfo", "previous", "random", "repeat", "seek", "seekcur", "seekid", "setvol", "single",
        "stats", "status", "stop", "tagtypes", "urlhandlers", "volume",
    ]

    /// The tags `currentsong` and `playlistinfo` can carry.
    static let tagTypes = ["Artist", "AlbumArtist", "Title", "Album", "Track", "Disc", "Date", "Genre"]

    func run(_ name: String, _ args: [String]) async throws(MPDError) -> String {
        do {
            return try await dispatch(name, args)
        } catch let error as MPDError {
            throw error
        } catch let error as PlayerError {
            switch error {
            case .noSuchEntry, .noSuchTrack, .noSuchAlbum, .noSuchHistoryEntry: throw MPDError(.noExist, error.description)
            case .emptyQueue, .nothingPlaying: throw MPDError(.playerSync, error.description)
            case .invalidValue: throw MPDError(.argument, error.description)
            }
        } catch {
            throw MPDError(.system, ErrorText.describe(error))
        }
    }

    private func dispatch(_ name: String, _ args: [String]) async throws -> String {
        if let reply = try await runDatabase(name, args) { return reply }
        switch name {
        case "ping": return ""
        case "commands": return Self.names.map { "command: \($0)\n" }.joined()
        case "notcommands": return ""
        case "tagtypes": return Self.tagTypes.map { "tagtype: \($0)\n" }.joined()
        case "urlhandlers": return "handler: http://\nhandler: https://\n"
        case "outputs": return "outputid: 0\noutputname: crate\nplugin: crate\noutputenabled: 1\n"
        case "stats":
            let songs = try database.snapshot().songs
            let artists = Set(songs.map(\.track.artist)).count, albums = Set(songs.map(\.track.albumID)).count
            let playtime = Int(songs.reduce(0) { $0 + $1.track.duration }.rounded())
            return "artists: \(artists)\nalbums: \(albums)\nsongs: \(songs.count)\nuptime: \(Int(-started.timeIntervalSinceNow))\n"
                + "db_playtime: \(playtime)\nplaytime: 0\n"
        case "status": return try await statusText()
        case "currentsong":
            guard let entry = try await player.status().entry else { return "" }
            return MPDSongText.song(entry, folders: try library.musicFolders())

        case "play":
            try await player.play(index: try Self.optionalNumber(args, 0).map { $0 + 1 })
        case "playid":
            if let id = try Self.optionalNumber(args, 0) {
                try await player.play(index: try await index(ofEntry: Int64(id)))
            } else {
                try await player.play()
            }
        case "pause":
            switch args.first {
            case nil: try await player.toggle()
            case "1": await player.pause()
            case "0": if try await player.status().state == .paused { try await player.play() }
            case let other?: throw MPDError(.argument, "Boolean (0/1) expected: \(other)")
            }
        case "stop": await player.stop()
        case "next": try await player.next()
        case "previous": try await player.previous()
        case "seekcur":
            let text = try Self.argument(args, 0)
            let relative = text.hasPrefix("+") || text.hasPrefix("-")
            try await player.seek(to: try Self.seconds(text), relative: relative)
        case "seek", "seekid":
            let which = try Self.number(args, 0)
            let index = name == "seek" ? which + 1 : try await index(ofEntry: Int64(which))
            if try await player.status().entry?.index != index { try await player.play(index: index) }
            try await player.seek(to: try Self.seconds(try Self.argument(args, 1)))

        case "setvol": await player.setVolume(try Self.number(args, 0, in: 0...100))
        case "volume": await player.setVolume(try Self.number(args, 0, in: -100...100), relative: true)
        case "getvol": return "volume: \(try await player.status().modes.volume)\n"
        case "repeat":
            let on = try Self.boolean(args, 0), modes = try await player.status().modes
            try await player.setRepeat(on ? (modes.repeatMode == .one ? .one : .all) : .off)
        case "single":
            // Crate's "repeat one" is MPD's repeat + single; single alone (stop after the song) has no counterpart.
            let on = try Self.boolean(args, 0), modes = try await player.status().modes
            if on {
                try await player.setRepeat(.one)
            } else if modes.repeatMode == .one {
                try await player.setRepeat(.all)
            }
        case "random": try await player.setShuffle(try Self.boolean(args, 0))
        case "consume":
            guard try !Self.boolean(args, 0) else {
                throw MPDError(.argument, "Crate keeps played songs in the queue: consume mode is not supported")
            }
        case "crossfade":
            throw MPDError(.argument, "Crate plays albums gaplessly: crossfade is not supported")

        case "playlistinfo", "playlistid":
            // One entry or one page is read, not the whole queue.
            let chosen: [QueueEntry]
            if name == "playlistid", let id = try Self.optionalNumber(args, 0) {
                guard let entry = try await player.entry(id: Int64(id)) else { throw MPDError(.noExist, "No such song") }
                chosen = [entry]
            } else if name == "playlistinfo", let range = try Self.optionalRange(args, 0) {
                chosen = try await player.queue(offset: range.lowerBound, limit: range.count)
                guard !chosen.isEmpty || range.isEmpty else { throw MPDError(.argument, "Bad song index") }
            } else {
                chosen = try await player.queue(offset: 0, limit: Int(Int32.max))
            }
            let folders = try library.musicFolders()
            return chosen.map { MPDSongText.song($0, folders: folders) }.joined()
        case "clear": try await player.clear()
        case "delete":
            guard let range = try Self.optionalRange(args, 0) else { throw MPDError(.argument, "wrong number of arguments for \"delete\"") }
            // From the end, so the positions still to delete do not move.
            for position in range.reversed() { try await player.remove(at: position + 1) }
        case "deleteid": try await player.remove(at: try await index(ofEntry: Int64(try Self.number(args, 0))))
        case "move":
            try await player.move(from: try Self.number(args, 0) + 1, to: try Self.number(args, 1) + 1)
        default:
            throw MPDError(.unknown, "unknown command \"\(name)\"")
        }
        return ""
    }

    /// MPD's `status`, with Crate's own modes in documented extra fields (`crate_*`, ignored by clients).
    private func statusText() async throws -> String {
        let status = try await player.status()
        let modes = status.modes
        var out = """
            volume: \(modes.volume)
            repeat: \(modes.repeatMode == .off ? 0 : 1)
            random: \(modes.shuffle ? 1 : 0)
            single: \(modes.repeatMode == .one ? 1 : 0)
            consume: 0
            partition: default
            playlist: \(playlistVersion.value)
            playlistlength: \(status.queueLength)
            mixrampdb: 0
            state: \(status.state == .playing ? "play" : status.state == .paused ? "pause" : "stop")

            """
        if let entry = status.entry {
            out += "song: \(entry.index - 1)\nsongid: \(entry.id)\n"
            if status.state != .stopped {
                let duration = status.duration ?? entry.track.duration
                out += "time: \(Int(status.elapsed)):\(Int(duration.rounded()))\n"
                out += "elapsed: \(String(format: "%.3f", status.elapsed))\n"
                out += "bitrate: 0\n"
                out += "duration: \(String(format: "%.3f", duration))\n"
                if let format = status.format, format.sampleRate > 0 {
                    out += "audio: \(format.sampleRate):\(format.bitsPerSample.map(String.init) ?? "f"):\(format.channels)\n"
                }
            }
            out += "crate_album_lock: \(entry.albumLock ? 1 : 0)\n"
        }
        out += "crate_stop_after_album: \(modes.stopAfterAlbum ? 1 : 0)\n"
        if let error = status.outputError { out += "error: \(MPDArguments.value("\(error.output): \(error.reason)"))\n" }
        return out
    }

    /// The 1-based queue index of entry `id`.
    private func index(ofEntry id: Int64) async throws -> Int {
        guard let entry = try await player.entry(id: id) else { throw MPDError(.noExist, "No such song") }
        return entry.index
    }

    // MARK: Arguments, checked as MPD checks them

    static func argument(_ args: [String], _ i: Int) throws(MPDError) -> String {
        guard i < args.count else { throw MPDError(.argument, "too few arguments") }
        return args[i]
    }

    static func number(_ args: [String], _ i: Int, in range: ClosedRange<Int> = 0...Int(Int32.max)) throws(MPDError) -> Int {
        let text = try argument(args, i)
        guard let n = Int(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        guard range.contains(n) else { throw MPDError(.argument, "Number too large: \(text)") }
        return n
    }

    static func optionalNumber(_ args: [String], _ i: Int) throws(MPDError) -> Int? {
        i < args.count ? try number(args, i) : nil
    }

    static func boolean(_ args: [String], _ i: Int) throws(MPDError) -> Bool {
        switch try argument(args, i) {
        case "1": return true
        case "0": return false
        case let other: throw MPDError(.argument, "Boolean (0/1) expected: \(other)")
        }
    }

    static func seconds(_ text: String) throws(MPDError) -> Double {
        guard let value = Double(text), value.isFinite else { throw MPDError(.argument, "Float expected: \(text)") }
        return value
    }

    /// `N` (one song) or `START:END` (END excluded, open when left out), 0-based.
    static func optionalRange(_ args: [String], _ i: Int) throws(MPDError) -> Range<Int>? {
        guard i < args.count else { return nil }
        let parts = args[i].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let start = Int(parts[0]), start >= 0 else { throw MPDError(.argument, "Integer expected: \(args[i])") }
        guard parts.count == 2 else { return start..<start + 1 }
        if parts[1].isEmpty { return start..<Int(Int32.max) }
        guard let end = Int(parts[1]), end >= start else { throw MPDError(.argument, "Bad range: \(args[i])") }
        return start..<end
    }
}

/// MPD's playlist version: a number that changes whenever the queue does (clients compare it to know whether to
/// read the queue again).
final class MPDPlaylistVersion: @unchecked Sendable {
    private let lock = NSLock()
    private var version = 1

    var value: Int { lock.withLock { version } }
    func bump() { lock.withLock { version += 1 } }
}
