public import ArgumentParser
import CrateAPI
import CrateCore
import CrateClient
public import CrateDomain
import Foundation

/// Options for commands that talk to the daemon.
struct DaemonOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    /// The daemon's client from the settings alone: player commands never open the library.
    func client() async throws -> DaemonClient { DaemonClient(settings: try await global.settings()) }

    /// The client of a daemon that answers, or the "not running" error before any library work.
    func runningClient() async throws -> DaemonClient {
        let client = try await client()
        guard await client.isRunning() else { throw client.notRunning }
        return client
    }

    /// Prints the status as a few lines (like mpc) or as JSON.
    func show(_ status: PlayerStatus) throws {
        if json { return try printJSON(status) }
        print(describe(status))
    }
}

func describe(_ s: PlayerStatus) -> String {
    var lines: [String] = []
    if let e = s.entry {
        let t = e.track
        let time = "\(clock(s.elapsed))/\(clock(s.duration ?? t.duration))"
        lines.append("\(s.state == .playing ? "▶" : s.state == .paused ? "⏸" : "■") \(s.state.rawValue)  \(e.index)/\(s.queueLength)  "
            + "\(t.title) — \(t.artist) (\(t.album))  \(time)  [\((s.format ?? t.info).summary)]")
        // A radio stream's own now-playing title (ICY StreamTitle).
        if let title = s.streamTitle, !title.isEmpty { lines.append("  now on air: \(title)") }
        if s.preview == true { lines.append("  preview of \(s.catalogAlbumID ?? "a catalog album") (the full song plays only in Apple's players)") }
    } else {
        lines.append("■ \(s.state.rawValue)  queue: \(s.queueLength) entries")
    }
    let m = s.modes
    lines.append("repeat: \(m.repeatMode.rawValue)  shuffle: \(m.shuffle ? "on" : "off")  "
        + "stop-after-album: \(m.stopAfterAlbum ? "on" : "off")  volume: \(m.volume)")
    if let l = s.loudness, s.entry != nil { lines.append(describe(l)) }
    if let skip = s.lastSkip { lines.append("last skipped: \(skip.title): \(skip.missing?.rawValue ?? "error") (\(skip.reason))") }
    if let trouble = s.outputError {
        let since = trouble.since.formatted(date: .omitted, time: .standard)
        let next = trouble.willResume ? "; plays on when it is back" : ""
        lines.append("output error: \(trouble.output): \(trouble.reason) (since \(since); tried again every few seconds\(next))")
    }
    return lines.joined(separator: "\n")
}

/// "loudness: album gain -6.2 dB (auto, scan; lowered to prevent clipping)".
func describe(_ l: LoudnessDecision) -> String {
    guard l.source != .none else {
        return "loudness: no gain (\(l.mode == .off ? "player.replaygain: off" : "\(l.mode.rawValue); not measured: crate loudness scan"))"
    }
    var notes = [l.mode.rawValue, l.origin?.rawValue ?? ""].filter { !$0.isEmpty }
    if l.preampDB != 0 { notes.append(String(format: "pre-amp %+.1f dB", l.preampDB)) }
    if l.clippingPrevented { notes.append("lowered to prevent clipping") }
    return String(format: "loudness: %@ gain %+.1f dB", l.source.rawValue, l.gainDB) + " (\(notes.joined(separator: ", ")))"
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what the daemon is playing.")
    @OptionGroup var options: DaemonOptions
    func run() async throws {
        try options.show(try await options.client().send("GET", "player", as: PlayerStatus.self))
    }
}

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Start or resume playback; with POSITION, play that queue entry.")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "Queue position (1 = first).") var position: Int?
    func run() async throws {
        try options.show(try await options.client().command("player/play", API.Play(index: position)))
    }
}

/// A command without arguments that posts to one player endpoint: pause, toggle, stop, next, prev.
protocol TransportCommand: AsyncParsableCommand {
    static var endpoint: String { get }
    var options: DaemonOptions { get }
}

extension TransportCommand {
    func run() async throws { try options.show(try await options.client().command(Self.endpoint)) }
}

struct Pause: TransportCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause.")
    static let endpoint = "player/pause"
    @OptionGroup var options: DaemonOptions
}

struct Toggle: TransportCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Pause if playing, else play.")
    static let endpoint = "player/toggle"
    @OptionGroup var options: DaemonOptions
}

struct Stop: TransportCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop playback.")
    static let endpoint = "player/stop"
    @OptionGroup var options: DaemonOptions
}

struct Next: TransportCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Play the next queue entry.")
    static let endpoint = "player/next"
    @OptionGroup var options: DaemonOptions
}

struct Prev: TransportCommand {
    static let configuration = CommandConfiguration(
        commandName: "prev",
        abstract: "Back to the start of the track, or (within its first 4 seconds) the previous entry.")
    static let endpoint = "player/previous"
    @OptionGroup var options: DaemonOptions
}

struct Seek: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Seek in the current track: 90, 1:30 (absolute), +10 or -10 (relative seconds).")
    @OptionGroup var options: DaemonOptions
    // `allUnrecognized`: a plain argument would make the parser read "-10" as an unknown option.
    @Argument(parsing: .allUnrecognized, help: "Position: 90, 1:30, +10 or -10.") var position: [String]
    func run() async throws {
        guard position.count == 1, let given = position.first else {
            throw ValidationError("give one position: 90, 1:30, +10 or -10")
        }
        let text = given.trimmingCharacters(in: .whitespaces)
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        guard let seconds = Self.seconds(relative ? String(text.dropFirst()) : text) else {
            throw ValidationError("'\(given)' is not a position: use 90, 1:30, +10 or -10")
        }
        let body = relative ? API.Seek(delta: text.hasPrefix("-") ? -seconds : seconds) : API.Seek(position: seconds)
        try options.show(try await options.client().command("player/seek", body))
    }

    /// "90", "1:30", "1:02:03" in seconds.
    static func seconds(_ text: String) -> Double? {
        var total = 0.0
        for part in text.split(separator: ":", omittingEmptySubsequences: false) {
            guard let v = Double(part), v >= 0 else { return nil }
            total = total * 60 + v
        }
        return text.isEmpty ? nil : total
    }
}

struct Volume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "volume", abstract: "Show or set the volume: 50, +5, -5.")
    @OptionGroup var options: DaemonOptions
    // `allUnrecognized`, as for seek: "-5" is a change, not an option.
    @Argument(parsing: .allUnrecognized, help: "0–100, or a change like +5 / -5.") var values: [String] = []
    func run() async throws {
        let client = try await options.client()
        guard values.count <= 1 else { throw ValidationError("give one volume: 0–100, +5 or -5") }
        guard let value = values.first else { return try options.show(try await client.send("GET", "player", as: PlayerStatus.self)) }
        guard let n = Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) else {
            throw ValidationError("'\(value)' is not a volume: use 0–100, +5 or -5")
        }
        let relative = value.hasPrefix("+") || value.hasPrefix("-")
        try options.show(try await client.command("player/volume", relative ? API.Volume(delta: n) : API.Volume(value: n)))
    }
}

struct Repeat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "repeat", abstract: "Repeat off, all (the queue) or one (the track).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "off, all or one.") var mode: RepeatMode
    func run() async throws {
        try options.show(try await options.client().command("player/options", API.Modes(repeat: mode), method: "PUT"))
    }
}

extension RepeatMode: ExpressibleByArgument {}

enum Switch: String, ExpressibleByArgument {
    case on, off
    var value: Bool { self == .on }
}

struct Shuffle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shuffle",
        abstract: "Shuffle on or off (an album started with play-album keeps its order).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "on or off.") var state: Switch
    func run() async throws {
        try options.show(try await options.client().command("player/options", API.Modes(shuffle: state.value), method: "PUT"))
    }
}

struct StopAfterAlbum: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop-after-album", abstract: "Pause at the border where the album changes.")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "on or off.") var state: Switch
    func run() async throws {
        try options.show(try await options.client().command("player/options", API.Modes(stopAfterAlbum: state.value), method: "PUT"))
    }
}

struct PlayAlbum: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play-album", abstract: "Replace the queue with an album, in album order, and play it (shuffle off).",
        discussion: """
            A catalog album (applemusic:ID, as `crate wall` and `crate catalog` show it) plays as its songs' 30-second \
            previews: the full songs play only in Apple's players. Songs without a preview are left out and named.
            """)
    @OptionGroup var options: DaemonOptions
    @Argument(help: "Album id, title, words from 'artist title', or applemusic:ID.") var album: String
    @Option(help: "Start at this track (1 = the first in album order).") var from: Int = 1
    func run() async throws {
        let client = try await options.runningClient()
        if let catalogID = FeedAlbumRef.catalogID(album.trimmingCharacters(in: .whitespaces)) {
            let played = try await client.send("POST", "catalog/albums/\(RemoteBackend.segment(catalogID))/play", API.PlayFrom(from: from),
                                               as: PreviewPlay.self)
            if options.json { return try printJSON(played) }
            print("previews of \(played.title) — \(played.artist) (\(played.album)): \(played.queued) queued")
            for skip in played.skipped { print("  skipped \(skip.title): \(skip.reason)") }
            return try options.show(played.status)
        }
        let found = try await userFacingAsync { try await options.global.runtime().collection.resolveAlbum(album) }
        let status = try await client.command("queue/play-album", API.PlayAlbum(albumID: found.id, from: from))
        try options.show(status)
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print the daemon's events as they happen (Ctrl-C ends).")
    @OptionGroup var options: DaemonOptions
    func run() async throws {
        let json = options.json
        let client = try await options.client()
        let address = client.address
        try await client.streamEvents { line in
            // The stream opens with a comment line: say once that we are connected.
            if line.hasPrefix(": crated") { return json ? () : live("watching crated at \(address)") }
            guard line.hasPrefix("data: ") else { return }
            let data = Data(line.dropFirst(6).utf8)
            if json { return live(String(decoding: data, as: UTF8.self)) }
            guard let event = try? JSONDecoder().decode(EventMessage.self, from: data) else { return }
            live("\(event.subsystem)\(event.detail.map { ": \($0)" } ?? "")")
        }
    }
}

/// Writes a line straight to standard output, so events show as they happen also through a pipe.
func live(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
