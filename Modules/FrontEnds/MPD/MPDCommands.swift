import CrateCore
import CrateDomain
import Foundation

/// The MPD commands Crate answers, over the same player as the HTTP API. Each returns its response lines (without
/// the final `OK`); a failure is an `MPDError`. Anything not listed in `names` is `ACK [5@0] {cmd} unknown command`.
struct MPDCommands: Sendable {
    let player: PlayerService
    let library: LibraryService
    let collection: MusicCollection
    let jobs: LibraryJobs
    let decoders: [any DecoderPlugin]
    let database: MPDDatabase
    let updates: MPDUpdateCounter
    /// When the front end started, for `stats`.
    let started = Date()
    /// The tags this connection's songs carry (`tagtypes`): all until the client narrows them.
    var tags = Set(MPDSongText.tagTypes)

    /// In MPD's order of `commands`' output (alphabetical).
    static let names: [String] = arity.keys.sorted()

    mutating func run(_ name: String, _ args: [String]) async throws(MPDError) -> String {
        do {
            return try await dispatch(name, args)
        } catch let error as MPDError {
            throw error
        } catch let error as PlayerError {
            switch error {
            // A queue position that is not there is an argument error in MPD; a missing id is `No such song`.
            case .noSuchEntry: throw MPDError(.argument, "Bad song index")
            case .noSuchTrack, .noSuchAlbum, .noSuchHistoryEntry: throw MPDError(.noExist, error.description)
            case .noSuchEntryID: throw MPDError(.noExist, "No such song")
            case .emptyQueue, .nothingPlaying: throw MPDError(.playerSync, "Not playing")
            case .invalidValue: throw MPDError(.argument, error.description)
            case .streamFailed, .streamTimedOut: throw MPDError(.system, error.description)
            case .noSuchOutput: throw MPDError(.noExist, "No such audio output")
            }
        } catch {
            throw MPDError(.system, ErrorText.describe(error))
        }
    }

    private mutating func dispatch(_ name: String, _ args: [String]) async throws -> String {
        if let reply = try await runDatabase(name, args) { return reply }
        if let reply = try await runPlaylists(name, args) { return reply }
        switch name {
        case "ping": return ""
        case "commands": return Self.names.map { "command: \($0)\n" }.joined()
        case "notcommands": return ""
        case "urlhandlers": return "handler: http://\nhandler: https://\n"
        case "decoders":
            // A decoder whose library is missing is left out, as MPD leaves out plugins it was built without.
            return decoders.filter(\.status.isAvailable).map { plugin in
                "plugin: \(plugin.name)\n" + plugin.suffixes.map { "suffix: \($0)\n" }.joined()
                    + plugin.mimeTypes.map { "mime_type: \($0)\n" }.joined()
            }.joined()
        case "tagtypes": return try tagTypes(args)
        case "update", "rescan":
            // Crate rescans the whole library (a URI narrows nothing); MPD's job number comes back at once.
            do { try jobs.rescan() } catch LibraryError.busy(let why) { throw MPDError(.updateAlready, "already updating: \(why)") }
            return "updating_db: \(updates.next())\n"
        case "outputs":
            // The output's number is its place in output.plugin; its name is the plugin's, as in Crate's own API.
            return player.outputStates().enumerated().map { id, output in
                "outputid: \(id)\noutputname: \(output.name)\nplugin: \(output.name)\noutputenabled: \(output.enabled ? 1 : 0)\n"
            }.joined()
        case "enableoutput", "disableoutput", "toggleoutput":
            let outputs = player.outputStates()
            let id = try Self.number(args, 0)
            guard outputs.indices.contains(id) else { throw MPDError(.noExist, "No such audio output") }
            let on = name == "toggleoutput" ? !outputs[id].enabled : name == "enableoutput"
            try await player.setOutput(outputs[id].name, enabled: on)
            return ""
        case "stats":
            let songs = try database.snapshot().songs
            let artists = Set(songs.map(\.track.artist)).count, albums = Set(songs.map(\.track.albumID)).count
            let playtime = Int(songs.reduce(0) { $0 + $1.track.duration }.rounded())
            // When the library last took a song in, as MPD's last database update.
            let updated = songs.compactMap(\.track.addedAt).max().map { Int($0.timeIntervalSince1970) } ?? 0
            return "artists: \(artists)\nalbums: \(albums)\nsongs: \(songs.count)\nuptime: \(Int(-started.timeIntervalSinceNow))\n"
                + "db_playtime: \(playtime)\ndb_update: \(updated)\nplaytime: 0\n"
        case "status": return try await statusText()
        case "currentsong":
            guard let entry = try await player.status().entry else { return "" }
            return MPDSongText.song(entry, folders: try library.musicFolders(), tags: tags)

        case "play":
            try await player.play(index: try Self.optionalNumber(args, 0).map { $0 + 1 })
        case "playid":
            if let id = try Self.optionalNumber(args, 0) {
                try await player.play(entryID: Int64(id))
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
        case "next":
            guard try await player.status().state != .stopped else { throw MPDError(.playerSync, "Not playing") }
            try await player.next()
        case "previous":
            // MPD's previous always goes back a song (Crate's own restarts a song after a few seconds); from the first
            // it wraps with repeat, else starts the first again.
            let status = try await player.status()
            guard status.state != .stopped, let entry = status.entry else { throw MPDError(.playerSync, "Not playing") }
            try await player.play(index: entry.index > 1 ? entry.index - 1 : status.modes.repeatMode == .all ? status.queueLength : 1)
        case "seekcur":
            let text = try Self.argument(args, 0)
            let relative = text.hasPrefix("+") || text.hasPrefix("-")
            try await player.seek(to: try Self.seconds(text), relative: relative)
        case "seek":
            try await player.seek(index: try Self.number(args, 0) + 1, to: try Self.seconds(try Self.argument(args, 1)))
        case "seekid":
            try await player.seek(entryID: Int64(try Self.number(args, 0)), to: try Self.seconds(try Self.argument(args, 1)))

        case "setvol": await player.setVolume(try Self.number(args, 0, in: 0...100))
        case "volume": await player.setVolume(try Self.number(args, 0, in: -100...100), relative: true)
        case "getvol": return "volume: \(try await player.status().modes.volume)\n"
        case "repeat":
            let modes = try await player.status().modes
            try await setRepeatAndSingle(repeat: try Self.boolean(args, 0), single: Self.single(modes))
        case "single":
            let modes = try await player.status().modes
            let single: String
            switch try Self.argument(args, 0) {
            case "0", "1", "oneshot": single = try Self.argument(args, 0)
            case _: throw MPDError(.argument, "Unrecognized single mode, expected 0, 1, or oneshot")
            }
            try await setRepeatAndSingle(repeat: modes.repeatMode != .off, single: single)
        case "replay_gain_mode":
            let text = try Self.argument(args, 0)
            guard let mode = LoudnessMode(rawValue: text) else {
                throw MPDError(.argument, "Unrecognized replay gain mode")
            }
            try await player.setLoudnessMode(mode)
        case "replay_gain_status": return "replay_gain_mode: \(await player.loudnessPolicy.mode.rawValue)\n"
        case "random": try await player.setShuffle(try Self.boolean(args, 0))
        case "consume":
            guard try !Self.boolean(args, 0) else {
                throw MPDError(.argument, "Crate keeps played songs in the queue: consume mode is not supported")
            }
        case "crossfade":
            guard try Self.number(args, 0) == 0 else {
                throw MPDError(.argument, "Crate plays albums gaplessly: crossfade is not supported")
            }

        case "playlistinfo", "playlistid":
            // One entry or one page is read, not the whole queue.
            let chosen: [QueueEntry]
            if name == "playlistid", let id = try Self.optionalNumber(args, 0) {
                guard let entry = try await player.entry(id: Int64(id)) else { throw MPDError(.noExist, "No such song") }
                chosen = [entry]
            } else if name == "playlistinfo", args.first != "-1", let range = try Self.optionalRange(args, 0) {
                chosen = try await player.queue(offset: range.lowerBound, limit: range.count)
                guard !chosen.isEmpty || range.isEmpty else { throw MPDError(.argument, "Bad song index") }
            } else {
                chosen = try await player.queue(offset: 0, limit: Int(Int32.max))
            }
            let folders = try library.musicFolders()
            return chosen.map { MPDSongText.song($0, folders: folders, tags: tags) }.joined()
        case "clear": try await player.clear()
        case "delete":
            guard let asked = try Self.optionalRange(args, 0) else { throw MPDError(.argument, "wrong number of arguments for \"delete\"") }
            if let range = try await queueRange(asked) { try await player.remove(range: range) }
        case "deleteid": try await player.remove(entryID: Int64(try Self.number(args, 0)))
        case "move":
            guard let asked = try Self.optionalRange(args, 0) else { throw MPDError(.argument, "too few arguments") }
            let to = try Self.number(args, 1) + 1
            if let range = try await queueRange(asked) { try await player.move(range: range, to: to) }
        case "moveid":
            try await player.move(entryID: Int64(try Self.number(args, 0)), to: try Self.number(args, 1) + 1)
        case "shuffle":
            if let asked = try Self.optionalRange(args, 0) {
                if let range = try await queueRange(asked) { try await player.shuffleQueue(range) }
            } else {
                try await player.shuffleQueue()
            }
        case "plchanges", "plchangesposid":
            // Crate keeps no version per entry: a client whose version is current gets nothing, any other the whole
            // queue (a correct superset of MPD's answer; clients cut the list at status' playlistlength).
            let version = try Self.number(args, 0, in: Int(Int32.min)...Int(Int32.max))
            guard version != (await player.queueVersion) else { return "" }
            let entries = try await player.queue(offset: 0, limit: Int(Int32.max))
            if name == "plchangesposid" { return entries.map { "cpos: \($0.index - 1)\nId: \($0.id)\n" }.joined() }
            let folders = try library.musicFolders()
            return entries.map { MPDSongText.song($0, folders: folders, tags: tags) }.joined()
        default:
            throw MPDError(.unknown, "unknown command \"\(name)\"")
        }
        return ""
    }

    /// MPD's `status`, with Crate's own modes in documented extra fields (`crate_*`, ignored by clients).
    private func statusText() async throws -> String {
        // MPD's playlist version is the player's queue version, read before the queue's length: a change between
        // the two reads leaves the client an older version, and it reads the queue again.
        let queueVersion = await player.queueVersion
        let status = try await player.status()
        let modes = status.modes
        var out = """
            volume: \(modes.volume)
            repeat: \(modes.repeatMode == .off ? 0 : 1)
            random: \(modes.shuffle ? 1 : 0)
            single: \(Self.single(modes))
            consume: 0
            partition: default
            playlist: \(queueVersion)
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
            if let next = try await player.nextEntry() { out += "nextsong: \(next.index - 1)\nnextsongid: \(next.id)\n" }
            out += "crate_album_lock: \(entry.albumLock ? 1 : 0)\n"
        }
        if let job = jobs.job, job.state == .running, ["rescan", "import"].contains(job.kind) { out += "updating_db: \(updates.current)\n" }
        out += "crate_stop_after_album: \(modes.stopAfterAlbum ? 1 : 0)\n"
        if let error = status.outputError { out += "error: \(MPDArguments.value("\(error.output): \(error.reason)"))\n" }
        return out
    }

    /// `tagtypes`: the list, or this connection's narrowing of it (`clear`, `all`, `enable T…`, `disable T…`).
    private mutating func tagTypes(_ args: [String]) throws(MPDError) -> String {
        guard let verb = args.first?.lowercased() else { return MPDSongText.tagTypes.filter(tags.contains).map { "tagtype: \($0)\n" }.joined() }
        // MPD's other tags (mpc enables `Name`, ncmpcpp `Composer`, …) are accepted: Crate's songs just never carry them.
        var named: [String] = []
        for word in args.dropFirst() {
            if let tag = MPDSongText.tagTypes.first(where: { $0.lowercased() == word.lowercased() }) {
                named.append(tag)
            } else if !MPDSongText.otherMPDTags.contains(word.lowercased()) {
                throw MPDError(.argument, "Unknown tag type: \(word)")
            }
        }
        switch verb {
        case "clear": tags = []
        case "all": tags = Set(MPDSongText.tagTypes)
        case "enable", "disable":
            guard !named.isEmpty else { throw MPDError(.argument, "Not enough arguments") }
            if verb == "enable" { tags.formUnion(named) } else { tags.subtract(named) }
        default: throw MPDError(.argument, "Unknown sub command: \(verb)")
        }
        return ""
    }

    /// A 0-based range from the client as the queue's 1-based places; an open end (`START:`) stops at the queue's
    /// end; nil when empty.
    private func queueRange(_ range: Range<Int>) async throws -> ClosedRange<Int>? {
        var end = range.upperBound
        if end == Int(Int32.max) { end = min(end, try await player.status().queueLength) }
        return end > range.lowerBound ? range.lowerBound + 1...end : nil
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

    /// MPD's `single` (0, 1 or oneshot) of Crate's modes: Crate's repeat one is MPD's repeat with single; MPD's single
    /// without repeat is Crate's stop after the track.
    static func single(_ modes: PlayerModes) -> String {
        if modes.repeatMode == .one { return "1" }
        switch modes.stopAfterTrack {
        case .off: return "0"
        case .always: return "1"
        case .once: return "oneshot"
        }
    }

    /// MPD's repeat and single as Crate's modes. Repeat with single oneshot (MPD: the song once more, then single is
    /// off) becomes repeat all with a stop after this track: Crate has no "repeat once".
    private func setRepeatAndSingle(repeat: Bool, single: String) async throws {
        let repeatMode: RepeatMode = !`repeat` ? .off : single == "1" ? .one : .all
        let stop: StopAfterTrack = single == "oneshot" ? .once : (single == "1" && !`repeat`) ? .always : .off
        let modes = try await player.status().modes
        if modes.repeatMode != repeatMode { try await player.setRepeat(repeatMode) }
        if modes.stopAfterTrack != stop { try await player.setStopAfterTrack(stop) }
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
        guard let end = Int(parts[1]), end >= start else { throw MPDError(.argument, "Malformed range: \(args[i])") }
        return start..<end
    }
}

/// The numbers `update` answers with (`updating_db: N`), as MPD numbers its update jobs.
final class MPDUpdateCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0

    var current: Int { lock.withLock { last } }
    func next() -> Int { lock.withLock { last += 1; return last } }
}

