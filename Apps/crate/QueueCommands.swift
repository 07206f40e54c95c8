import ArgumentParser
import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import CrateClient

struct Queue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Show and edit the play queue.",
        subcommands: [List.self, Add.self, Insert.self, Move.self, Remove.self, Clear.self],
        defaultSubcommand: List.self)

    struct Page: Decodable {
        var total: Int
        var offset: Int
        var entries: [QueueEntry]
    }

    struct Added: Decodable {
        var entryIDs: [Int64]
        var status: PlayerStatus
    }

    /// What to add: an album (in album order) and/or track ids.
    struct What: ParsableArguments {
        @Option(help: "An album: id, title, or words from 'artist title'.") var album: String?
        @Option(name: .customLong("track"), help: "A track id (repeatable).") var tracks: [Int64] = []

        /// Posts the tracks to the queue, at the end, next or at a place, and prints what happened.
        func add(mode: QueueAddMode? = nil, index: Int? = nil, _ options: DaemonOptions, saying verb: String) async throws {
            let client = try await options.runningClient()
            var body = try self.body(try await options.global.runtime())
            (body.mode, body.index) = (mode, index)
            let added = try await client.send("POST", "queue", body, as: Added.self)
            if !options.json { print("\(verb) \(added.entryIDs.count) entries.") }
            try options.show(added.status)
        }

        func body(_ runtime: CrateRuntime) throws -> API.QueueAdd {
            guard album != nil || !tracks.isEmpty else { throw ValidationError("name an --album or one or more --track ids") }
            return API.QueueAdd(trackIDs: tracks.isEmpty ? nil : tracks,
                                albumID: try album.map { a in try userFacing { try runtime.collection.resolveAlbum(a).id } })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue (▶ marks the current entry).")
        @OptionGroup var options: DaemonOptions
        @Option(help: "First position to show (1-based).") var from: Int = 1
        @Option(help: "How many entries.") var limit: Int = 200
        func run() async throws {
            let client = try await options.client()
            let page = try await client.send("GET", "queue?offset=\(max(from, 1) - 1)&limit=\(limit)", as: Page.self)
            if options.json { return try printJSON(page.entries) }
            let status = try await client.send("GET", "player", as: PlayerStatus.self)
            if page.total == 0 { return print("The queue is empty.") }
            for e in page.entries {
                let mark = e.id == status.entry?.id ? "▶" : " "
                print("\(mark)\(pad(String(e.index), 6))\(e.track.title) — \(e.track.artist) (\(e.track.album))  \(clock(e.track.duration))")
            }
            if page.offset + page.entries.count < page.total {
                print("… \(page.total - page.offset - page.entries.count) more (--from \(page.offset + page.entries.count + 1))")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add to the end of the queue, or after the current entry with --next.")
        @OptionGroup var options: DaemonOptions
        @OptionGroup var what: What
        @Flag(help: "Play next: insert after the current entry.") var next = false
        func run() async throws {
            try await what.add(mode: next ? .next : .end, options, saying: "Added")
        }
    }

    struct Insert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "insert", abstract: "Insert so the first added entry lands at POSITION.")
        @OptionGroup var options: DaemonOptions
        @Argument(help: "Queue position (1-based).") var position: Int
        @OptionGroup var what: What
        func run() async throws {
            try await what.add(index: position, options, saying: "Inserted at \(position):")
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "move", abstract: "Move the entry at FROM to TO.")
        @OptionGroup var options: DaemonOptions
        @Argument var from: Int
        @Argument var to: Int
        func run() async throws {
            try options.show(try await options.client().command("queue/move", API.Move(from: from, to: to)))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove the entry at POSITION.")
        @OptionGroup var options: DaemonOptions
        @Argument var position: Int
        func run() async throws {
            try options.show(try await options.client().command("queue/\(position)", method: "DELETE"))
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue (stops playback).")
        @OptionGroup var options: DaemonOptions
        func run() async throws { try options.show(try await options.client().command("queue", method: "DELETE")) }
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Recently finished tracks, newest first (at most 100).")
    @OptionGroup var options: DaemonOptions
    @Option(help: "Play history entry N in place of the current track (the rest of the queue stays).") var play: Int?
    func run() async throws {
        let client = try await options.client()
        if let play { return try options.show(try await client.command("history/\(play)/play")) }
        let history = try await client.send("GET", "history", as: [HistoryEntry].self)
        if options.json { return try printJSON(history) }
        if history.isEmpty { return print("No history yet.") }
        for (i, h) in history.enumerated() {
            print("\(pad(String(i + 1), 5))\(h.track.title) — \(h.track.artist) (\(h.track.album))")
        }
    }
}
