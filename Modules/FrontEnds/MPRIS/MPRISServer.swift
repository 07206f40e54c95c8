import CrateCore
import CrateDomain
import Foundation
import Logging
import Synchronization

/// crated's MPRIS front end (Docs/MPRIS.md): `org.mpris.MediaPlayer2.crate` on the session bus, so desktop media keys,
/// GNOME and KDE's players and `playerctl` drive the same player as the HTTP API. Method calls are answered from the
/// player; player, queue, mixer and options events become `PropertiesChanged`, seeks `Seeked`.
final class MPRISServer: Sendable {
    static let busName = "org.mpris.MediaPlayer2.crate"
    static let path = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    let bus: SessionBus
    let player: PlayerService
    let collection: MusicCollection
    let library: LibraryService
    let mimeTypes: [String]
    let logger: Logger
    /// The Player properties last announced, to send only what changed.
    private let announced = Mutex<[(String, DBusValue)]>([])

    init(bus: SessionBus, player: PlayerService, collection: MusicCollection, library: LibraryService, mimeTypes: [String],
         logger: Logger) {
        self.bus = bus
        self.player = player
        self.collection = collection
        self.library = library
        self.mimeTypes = mimeTypes
        self.logger = logger
    }

    /// Serves until the task is cancelled.
    func serve() async throws {
        try bus.serve(path: Self.path) { [self] call in
            Task { await answer(call) }
        }
        if let status = try? await player.status(), let now = try? playerProperties(status) { announced.withLock { $0 = now } }
        for await event in player.events.subscribe() {
            switch event {
            case .player(.seek): await announce(seek: true)
            case .player, .queue, .mixer, .options: await announce(seek: false)
            case .library, .feeds, .output: continue
            }
        }
        bus.stop()
    }

    // MARK: Calls

    private func answer(_ call: DBusMessagePointer) async {
        defer { call.release() }
        let reply: OpaquePointer?
        do {
            reply = try await handle(call)
        } catch let failure as MPRISFailure {
            reply = call.error(failure.name, failure.message)
        } catch {
            reply = call.error("org.mpris.MediaPlayer2.Player.Error.Failed", ErrorText.describe(error))
        }
        if let reply { bus.send(reply) }
    }

    private func handle(_ call: DBusMessagePointer) async throws -> OpaquePointer? {
        let args = call.arguments
        switch (call.interface, call.member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return call.reply([.string(MPRISIntrospection.xml)])
        case ("org.freedesktop.DBus.Peer", "Ping"):
            return call.reply()
        case (Self.propertiesInterface, "Get"):
            guard case .string(let interface)? = args.first, args.count == 2, case .string(let name) = args[1] else {
                throw MPRISFailure.invalidArgs("Get takes an interface and a property name")
            }
            guard let value = try await properties(of: interface).first(where: { $0.0 == name })?.1 else {
                throw MPRISFailure.unknownProperty(interface, name)
            }
            return call.reply([value], variant: true)
        case (Self.propertiesInterface, "GetAll"):
            guard case .string(let interface)? = args.first else { throw MPRISFailure.invalidArgs("GetAll takes an interface") }
            return call.reply([.dictionary(try await properties(of: interface))])
        case (Self.propertiesInterface, "Set"):
            guard args.count == 3, case .string(let interface) = args[0], case .string(let name) = args[1] else {
                throw MPRISFailure.invalidArgs("Set takes an interface, a property name and a value")
            }
            try await set(interface, name, args[2])
            return call.reply()
        case (Self.rootInterface, "Raise"), (Self.rootInterface, "Quit"):
            // CanRaise and CanQuit are false: the web page is the window, and the daemon is the user's service.
            return call.reply()
        case (Self.playerInterface, let method), ("", let method):
            try await run(method, args)
            return call.reply()
        default:
            throw MPRISFailure.unknownMethod(call.interface, call.member)
        }
    }

    private func run(_ method: String, _ args: [DBusValue]) async throws {
        switch method {
        case "Play": if try await player.status().state != .playing { try await player.play() }
        case "Pause": await player.pause()
        case "PlayPause": try await player.toggle()
        case "Stop": await player.stop()
        case "Next": try await player.next()
        case "Previous": try await player.previous()
        case "Seek":
            guard case .int64(let offset)? = args.first else { throw MPRISFailure.invalidArgs("Seek takes an offset in microseconds") }
            try await player.seek(to: Double(offset) / 1_000_000, relative: true)
        case "SetPosition":
            guard args.count == 2, case .objectPath(let track) = args[0], case .int64(let position) = args[1] else {
                throw MPRISFailure.invalidArgs("SetPosition takes a track id and a position in microseconds")
            }
            // The spec: ignored unless it names the current track and lies inside it.
            let status = try await player.status()
            guard let entry = status.entry, track == Self.trackPath(entry), position >= 0,
                  Double(position) / 1_000_000 <= (status.duration ?? entry.track.duration) else { return }
            try await player.seek(to: Double(position) / 1_000_000)
        case "OpenUri":
            guard case .string(let uri)? = args.first, let url = URL(string: uri) else { throw MPRISFailure.invalidArgs("OpenUri takes a URI") }
            if url.isFileURL {
                guard let id = try collection.trackID(path: url.standardizedFileURL.path) else {
                    throw MPRISFailure.invalidArgs("\(url.path) is not in Crate's library: import it first (crate import)")
                }
                try await player.playList([id])
            } else {
                try await player.playURL(uri)
            }
        default:
            throw MPRISFailure.unknownMethod(Self.playerInterface, method)
        }
    }

    private func set(_ interface: String, _ name: String, _ value: DBusValue) async throws {
        guard interface == Self.playerInterface else { throw MPRISFailure.readOnly(interface, name) }
        switch (name, value) {
        case ("Volume", .double(let volume)):
            await player.setVolume(Int((min(max(volume, 0), 1) * 100).rounded()))
        case ("LoopStatus", .string(let loop)):
            switch loop {
            case "None": try await player.setRepeat(.off)
            case "Track": try await player.setRepeat(.one)
            case "Playlist": try await player.setRepeat(.all)
            default: throw MPRISFailure.invalidArgs("LoopStatus is None, Track or Playlist, not \(loop)")
            }
        case ("Shuffle", .bool(let on)): try await player.setShuffle(on)
        case ("Rate", .double(let rate)):
            guard rate == 1 else { throw MPRISFailure.invalidArgs("Crate plays at rate 1 only") }
        default:
            throw MPRISFailure.readOnly(interface, name)
        }
    }

    // MARK: Properties

    private func properties(of interface: String) async throws -> [(String, DBusValue)] {
        switch interface {
        case Self.rootInterface:
            return [
                ("CanQuit", .bool(false)), ("CanRaise", .bool(false)), ("HasTrackList", .bool(false)),
                ("Identity", .string("Crate")), ("DesktopEntry", .string("crate")),
                ("SupportedUriSchemes", .strings(["file", "http", "https"])), ("SupportedMimeTypes", .strings(mimeTypes)),
            ]
        case Self.playerInterface:
            let status = try await player.status()
            return try playerProperties(status) + [("Position", .int64(Self.microseconds(status.elapsed)))]
        default:
            throw MPRISFailure.unknownInterface(interface)
        }
    }

    /// The Player properties that change (Position is read, never announced, as the spec says).
    private func playerProperties(_ status: PlayerStatus) throws -> [(String, DBusValue)] {
        let modes = status.modes
        let hasEntry = status.entry != nil
        return [
            ("PlaybackStatus", .string(status.state == .playing ? "Playing" : status.state == .paused ? "Paused" : "Stopped")),
            ("LoopStatus", .string(modes.repeatMode == .one ? "Track" : modes.repeatMode == .all ? "Playlist" : "None")),
            ("Rate", .double(1)), ("MinimumRate", .double(1)), ("MaximumRate", .double(1)),
            ("Shuffle", .bool(modes.shuffle)),
            ("Metadata", .dictionary(try metadata(status))),
            ("Volume", .double(Double(modes.volume) / 100)),
            ("CanGoNext", .bool(hasEntry && status.entry.map { $0.index < status.queueLength || modes.repeatMode != .off } == true)),
            ("CanGoPrevious", .bool(hasEntry)),
            ("CanPlay", .bool(hasEntry || status.queueLength > 0)),
            ("CanPause", .bool(hasEntry)),
            ("CanSeek", .bool(hasEntry && (status.duration ?? status.entry?.track.duration ?? 0) > 0)),
            ("CanControl", .bool(true)),
        ]
    }

    private func metadata(_ status: PlayerStatus) throws -> [(String, DBusValue)] {
        guard let entry = status.entry else { return [("mpris:trackid", .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack"))] }
        let t = entry.track
        var out: [(String, DBusValue)] = [("mpris:trackid", .objectPath(Self.trackPath(entry)))]
        let length = status.duration ?? t.duration
        if length > 0 { out.append(("mpris:length", .int64(Self.microseconds(length)))) }
        out.append(("xesam:title", .string(status.streamTitle ?? t.title)))
        if !t.artist.isEmpty { out.append(("xesam:artist", .strings([t.artist]))) }
        if !t.album.isEmpty { out.append(("xesam:album", .string(t.album))) }
        if !t.albumArtist.isEmpty { out.append(("xesam:albumArtist", .strings([t.albumArtist]))) }
        if let n = t.trackNumber { out.append(("xesam:trackNumber", .int32(Int32(clamping: n)))) }
        if let n = t.discNumber { out.append(("xesam:discNumber", .int32(Int32(clamping: n)))) }
        if let genre = t.genre, !genre.isEmpty { out.append(("xesam:genre", .strings(genre.components(separatedBy: "; ")))) }
        out.append(("xesam:url", .string(t.path.map { URL(fileURLWithPath: $0).absoluteString } ?? t.ref.id)))
        // A thumbnail file (made once, cached): desktop widgets read it directly.
        if let hash = t.artworkHash, let art = try? library.artworkFile(hash: hash, size: 512) {
            out.append(("mpris:artUrl", .string(art.url.absoluteString)))
        }
        return out
    }

    /// The changed Player properties in one PropertiesChanged, and Seeked after a seek.
    private func announce(seek: Bool) async {
        guard let status = try? await player.status(), let now = try? playerProperties(status) else { return }
        let changed = announced.withLock { last in
            let old = Dictionary(last, uniquingKeysWith: { first, _ in first })
            last = now
            return now.filter { old[$0.0] != $0.1 }
        }
        if !changed.isEmpty, let signal = dbusSignal(path: Self.path, interface: Self.propertiesInterface, name: "PropertiesChanged",
                                                     [.string(Self.playerInterface), .dictionary(changed), .strings([])]) {
            bus.send(signal)
        }
        if seek, let signal = dbusSignal(path: Self.path, interface: Self.playerInterface, name: "Seeked",
                                         [.int64(Self.microseconds(status.elapsed))]) {
            bus.send(signal)
        }
    }

    static func trackPath(_ entry: QueueEntry) -> String { "/org/crate/queue/\(entry.id)" }

    static func microseconds(_ seconds: Double) -> Int64 {
        seconds.isFinite ? Int64((seconds * 1_000_000).rounded()) : 0
    }
}

/// A D-Bus error answer: its standard name and a message for the user.
struct MPRISFailure: Error {
    let name: String
    let message: String

    static func invalidArgs(_ message: String) -> MPRISFailure { MPRISFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    static func unknownMethod(_ interface: String, _ method: String) -> MPRISFailure {
        MPRISFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(method) in \(interface)")
    }
    static func unknownInterface(_ interface: String) -> MPRISFailure {
        MPRISFailure(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "no interface \(interface)")
    }
    static func unknownProperty(_ interface: String, _ name: String) -> MPRISFailure {
        MPRISFailure(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no property \(name) in \(interface)")
    }
    static func readOnly(_ interface: String, _ name: String) -> MPRISFailure {
        MPRISFailure(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(interface).\(name) cannot be set to that")
    }
}
