import ArgumentParser
import CrateClient
import CrateAPI
import CrateCore
import CrateDomain
import Foundation

struct Stations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stations",
        abstract: "Saved internet radio stations: list, add, remove, play.",
        discussion: "STATION is an id or a name. Stations can also be favorited (`crate fav track ID`), queued and put in playlists by their track id.",
        subcommands: [StationList.self, StationAdd.self, StationRemove.self, StationPlay.self], defaultSubcommand: StationList.self)
}

struct StationList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List saved stations (the default).")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let stations = try await userFacingAsync { try await options.runtime().collection.stations() }
        if json { return try printJSON(stations) }
        if stations.isEmpty { return print("No stations; add one with `crate stations add NAME URL`.") }
        for s in stations { print("\(pad(String(s.id), 5))\(s.favorite ? "♥ " : "")\(s.name)  \(s.url)  [track \(s.trackID)]") }
    }
}

struct StationAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Save a station: a name and its stream or playlist URL.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Its name.") var name: String
    @Argument(help: "The stream's URL (http or https; .pls, .m3u and .xspf playlists too).") var url: String
    @Option(help: "A picture for it (URL).") var artwork: String?

    func run() async throws {
        let backend = try await options.backend()
        let station = try await userFacingAsync {
            try await backend.addStation(API.StationAdd(name: name, url: url, artworkURL: artwork))
        }
        print("Saved station \(station.id): \(station.name)")
    }
}

struct StationRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forget a station (it leaves queues and playlists too).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Station id or name.") var station: String

    func run() async throws {
        let found = try await userFacingAsync { try await options.runtime().collection.resolveStation(station) }
        let backend = try await options.backend()
        try await userFacingAsync { try await backend.removeStation(found.id) }
        print("Removed station \(found.name).")
    }
}

struct StationPlay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play a station through the daemon (replaces the queue).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "Station id or name.") var station: String
    @OptionGroup var wait: StreamWait

    func run() async throws {
        let client = try await options.runningClient()
        let found = try await userFacingAsync { try await options.global.runtime().collection.resolveStation(station) }
        try options.show(try await client.command("stations/\(found.id)/play", API.PlayStation(wait: wait.seconds)))
    }
}

/// How long a stream command waits for the stream's first sound before answering.
struct StreamWait: ParsableArguments {
    @Option(name: .customLong("wait"), help: ArgumentHelp(
        "Seconds to wait for the first sound; a stream that fails says why and the command exits 1 (0: do not wait).",
        valueName: "seconds"))
    var wait: Double = 10

    var seconds: Double? { wait > 0 ? min(wait, 60) : nil }
}

struct PlayURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play-url", abstract: "Play a stream or a file on a web server (replaces the queue).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "http or https URL (radio playlists .pls, .m3u, .xspf too).") var url: String
    @OptionGroup var wait: StreamWait

    func run() async throws {
        _ = try userFacing { try Station.streamURL(url) }
        try options.show(try await options.runningClient().command("queue/play-url", API.PlayURL(url: url, wait: wait.seconds)))
    }
}
