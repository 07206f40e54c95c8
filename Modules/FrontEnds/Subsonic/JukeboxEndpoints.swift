import CrateCore
import CrateDomain
import Foundation

/// Subsonic's jukebox: an app drives crated's own player (the speakers of the machine it runs on), through Core's
/// player service as the web page and MPD do, so they all see the same queue. Accounts with the jukebox role
/// (`crate users add NAME --jukebox`) and admins may; others are refused with 50.
///
/// The jukebox playlist is crated's queue. Subsonic counts its entries from 0, Crate's queue from 1: `index`
/// parameters and `currentIndex` are turned over here. `stop` pauses (Subsonic's jukebox has no other pause, and
/// `start` goes on from there); `setGain` is the player's volume (0.0–1.0 → 0–100); `shuffle` is Crate's queue
/// shuffle, which keeps each album's run of songs together.
enum JukeboxEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "jukeboxControl": .signedIn(control),
    ]

    static let actions = "get, status, set, start, stop, skip, add, clear, remove, shuffle, setGain"

    static func control(_ call: SubsonicCall) async throws -> SubsonicReply {
        guard call.account.jukebox || call.account.isAdmin else {
            throw SubsonicError(.notAuthorized, "jukeboxControl needs an account with the jukebox role (crate users add NAME --jukebox)")
        }
        let p = call.parameters, player = call.services.player
        let action = try p.required("action")
        do {
            switch action {
            case "get":
                let list = try await playlist(call)
                return .payload(SubsonicObject { $0["jukeboxPlaylist"] = list })
            case "status": break
            case "set":
                let ids = try trackIDs(call)
                try await player.clear()
                if !ids.isEmpty { try await player.add(ids) }
            case "start": try await player.play()
            case "stop": await player.pause()
            case "skip":
                let index = try entryIndex(call)
                try await player.play(index: index)
                let offset = try p.int("offset", default: 0)
                if offset > 0 { try await player.seek(to: Double(offset)) }
            case "add":
                let ids = try trackIDs(call)
                guard !ids.isEmpty else { throw SubsonicError.missing("id") }
                try await player.add(ids)
            case "clear": try await player.clear()
            case "remove": try await player.remove(at: try entryIndex(call))
            case "shuffle": try await player.shuffleQueue()
            case "setGain":
                let text = try p.required("gain")
                guard let gain = Double(text), gain.isFinite, (0...1).contains(gain) else {
                    throw SubsonicError.invalid("gain", text, expected: "a number from 0.0 to 1.0")
                }
                await player.setVolume(Int((gain * 100).rounded()))
            default:
                throw SubsonicError.invalid("action", action, expected: "one of \(actions)")
            }
        } catch let error as PlayerError {
            throw SubsonicError(error.isNotFound ? .notFound : .generic, "jukebox \(action): \(error.description)")
        }
        let answer = try await status(call)
        return .payload(SubsonicObject { $0["jukeboxStatus"] = answer })
    }

    /// Where the player is: the current entry (from 0; -1 when there is none), playing or not, the volume as a gain,
    /// and the position in whole seconds.
    static func status(_ call: SubsonicCall) async throws -> SubsonicObject {
        let status = try await call.services.player.status()
        return SubsonicObject { jukebox in
            jukebox["currentIndex"] = status.entry.map { $0.index - 1 } ?? -1
            jukebox["playing"] = status.state == .playing
            jukebox["gain"] = Double(status.modes.volume) / 100
            jukebox["position"] = Int(status.elapsed)
        }
    }

    /// The status and every song of the queue.
    static func playlist(_ call: SubsonicCall) async throws -> SubsonicObject {
        var list = try await status(call)
        var entries: [QueueEntry] = []
        let page = 1000
        while true {
            let more = try await call.services.player.queue(offset: entries.count, limit: page)
            entries += more
            guard more.count == page else { break }
        }
        list["entry"] = try entries.map { try call.items.song($0.track) }
        return list
    }

    /// The songs `id` names (repeatable), each a library song; an unknown one is refused before anything changes.
    private static func trackIDs(_ call: SubsonicCall) throws -> [Int64] {
        try call.parameters.all("id").map { try BrowsingEndpoints.libraryTrack($0, call).id }
    }

    /// `index` (Subsonic's, from 0) as Crate's queue position (from 1), checked against the queue.
    private static func entryIndex(_ call: SubsonicCall) throws -> Int {
        guard let index = try call.parameters.int("index", default: nil) else { throw SubsonicError.missing("index") }
        let count = try call.services.collection.queueCount()
        guard (0..<count).contains(index) else {
            throw SubsonicError.invalid("index", String(index), expected: count == 0 ? "the jukebox playlist is empty"
                                        : "the jukebox playlist has songs 0 to \(count - 1)")
        }
        return index + 1
    }
}
