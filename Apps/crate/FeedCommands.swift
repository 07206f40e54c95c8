import ArgumentParser
import CrateCore
import CrateDomain
import CrateFeeds
import Foundation
import CrateClient

struct Wall: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wall",
        abstract: "Show the Crate Wall: albums from your history, recommendations, charts, new releases and wild cards.",
        discussion: """
            With crated running, the wall is the daemon's (kept until the dial changes or --regenerate) and --more \
            continues it without repeats; without it, the wall is composed here. Album ids work with `crate like`, \
            `crate dislike` and `crate play-album` (a catalog album plays its songs' previews).
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var feed: FeedOptions
    @Option(help: "Set the Crate Dial first (my, mostly-mine, mixed, mostly-mystery, mystery, or 0-4).") var dial: String?
    @Flag(help: "Compose a fresh wall.") var regenerate = false

    func run() async throws {
        // Composing a wall without the daemon stores the dial: a writer.
        let backend = try await options.backend()
        let page = try await userFacingAsync {
            try await backend.wall(dial: dial, regenerate: regenerate, more: feed.more, artwork: feed.artwork)
        }
        if feed.json { try printJSON(page) } else { FeedPrinter.print(page, title: "Crate Wall", onlyNewest: feed.more) }
        // An empty wall is a failure a script should see; the reason is printed above (and in the JSON).
        if page.entries.isEmpty { throw ExitCode(1) }
    }
}

struct GenreFeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "genre",
        abstract: "A genre feed: your history, recommendations, trending, new releases, subcategories and more like your likes.",
        discussion: "Genres and subcategories are those of `crate catalog genres`; library albums count by their genre tags.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var feed: FeedOptions
    @Argument(help: "The genre (Rock, Jazz, \"Hip-Hop\", …).") var genre: String
    @Argument(help: "Subcategories of it (\"Indie Rock\" Punk …).") var subcategories: [String] = []

    func run() async throws {
        let backend = try await options.backend()
        let page = try await userFacingAsync {
            try await backend.genre(genre, subcategories: subcategories, more: feed.more, artwork: feed.artwork)
        }
        if feed.json { return try printJSON(page) }
        let title = ([page.genre ?? genre] + page.subcategories).joined(separator: " · ")
        FeedPrinter.print(page, title: title, onlyNewest: feed.more)
    }
}

/// What the wall and genre feeds share on the command line.
struct FeedOptions: ParsableArguments {
    @Flag(help: "One more page of the same feed (needs crated).") var more = false
    @Option(help: "Artwork size in pixels for the URLs in --json.") var artwork = 300
    @Flag(help: "Print JSON.") var json = false
}

struct Dial: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dial",
        abstract: "Show or set the Crate Dial: how personal (My Crate) or how random (Mystery Crate) the feeds are.",
        discussion: "A change is kept; a running crated regenerates its wall once the dial has been still for a second.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "my, mostly-mine, mixed, mostly-mystery, mystery (or 0-4).") var position: String?

    func run() async throws {
        let backend = try await options.backend()
        let current = try await userFacingAsync { try await backend.dial(position) }
        for dial in CrateDial.allCases {
            print("\(dial == current ? "▶" : " ") \(dial.index)  \(dial.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0))\(dial.title)")
        }
    }
}

struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "like",
        abstract: "Like an album: a favorite here, and for Apple Music albums also added to your library, loved and starred.",
        discussion: """
            ALBUM is a library album's id or name, or applemusic:ID from `crate wall` or `crate genre`. Liking clears a \
            dislike. --remove takes the like back here only: the Apple Music rating stays.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, name, or applemusic:ID.") var album: [String]
    @Flag(help: "Take the like back.") var remove = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await OpinionCommand.run(options, album, remove ? .clear(.favorite) : .set(.favorite), json: json)
    }
}

/// Like and dislike on the command line, through the command's backend (crated when it runs).
enum OpinionCommand {
    static func run(_ options: GlobalOptions, _ words: [String], _ action: OpinionAction, json: Bool) async throws {
        let ref = words.joined(separator: " ")
        guard !ref.isEmpty else { throw CLIError("name the album: its id, its name, or applemusic:ID") }
        let backend = try await options.backend()
        let outcome = try await userFacingAsync { try await backend.opinion(ref, action) }
        if json { return try printJSON(outcome) }
        let mark = outcome.opinion == .favorite ? "♥" : outcome.opinion == .dislike ? "✗" : "·"
        print("\(mark) \(outcome.artist.isEmpty ? "" : outcome.artist + " — ")\(outcome.title)  [\(outcome.album)]")
        for write in outcome.writes {
            print("  Apple Music \(write.name): \(write.ok ? "done" : "FAILED — \(write.message ?? "unknown") (the \(outcome.opinion == .favorite ? "like" : "dislike") is kept here)")")
        }
        if let notSent = outcome.notSent { print("  \(notSent)") }
    }
}

struct Feed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Check the feeds.", subcommands: [Diagnose.self])

    struct Diagnose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diagnose",
            abstract: "Check likes and dislikes, the dial's weight tables and every signal; list unmapped genre tags.",
            discussion: "Each signal is asked for a few albums (catalog signals make their requests). Exits 1 when a check fails.")

        @OptionGroup var options: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let backend = try await options.backend()
            let report = try await userFacingAsync { try await backend.diagnoseFeeds() }
            if json { try printJSON(report) } else { FeedPrinter.print(report) }
            if !report.ok { throw ExitCode(1) }
        }
    }
}

/// How feeds look in a terminal.
enum FeedPrinter {
    static func print(_ page: FeedPage, title: String, onlyNewest: Bool) {
        let dial = CrateDial(parsing: page.dial)?.title ?? page.dial
        let shown = onlyNewest ? Array(page.entries.suffix(page.newest)) : page.entries
        Swift.print("\(title) — \(dial): \(counted(shown.count, "album"))\(onlyNewest ? " more (page \(page.pages))" : "")")
        let bySignal = Dictionary(grouping: page.contributions, by: \.signal)
        let summary = SignalID.allCases.compactMap { id -> String? in
            guard let parts = bySignal[id.rawValue] else { return nil }
            return "\(id.title) " + parts.map { "\($0.count) \($0.source)" }.joined(separator: " + ")
        }
        if !summary.isEmpty { Swift.print("  from: " + summary.joined(separator: "; ")) }
        for failure in page.failures {
            Swift.print("  \(SignalID(rawValue: failure.signal)?.title ?? failure.signal) (\(failure.source)) failed: \(failure.message)")
        }
        if let explanation = page.explanation { Swift.print("  \(explanation)") }
        for entry in shown {
            let year = entry.year.map { " (\($0)" + ")" } ?? ""
            let mark = entry.opinion == .favorite ? "♥ " : ""
            Swift.print("\(entry.id.padding(toLength: max(6, entry.id.count + 2), withPad: " ", startingAt: 0))\(mark)\(entry.artist) — \(entry.title)\(year)  · \(entry.signalTitle), \(entry.source)")
        }
    }

    static func print(_ report: FeedDiagnosis) {
        Swift.print("Dial: \(CrateDial(parsing: report.dial)?.title ?? report.dial)")
        for check in report.checks {
            Swift.print("\(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail)")
        }
        Swift.print("Signals (asked for a few albums each):")
        for s in report.signals {
            let name = SignalID(rawValue: s.signal)?.title ?? s.signal
            let state = s.error.map { "failed: \($0)" } ?? (s.albums > 0 ? "live, \(counted(s.albums, "album"))" : "nothing to offer")
            Swift.print("  \(s.feed.padding(toLength: 10, withPad: " ", startingAt: 0)) \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(s.source.padding(toLength: 8, withPad: " ", startingAt: 0)) \(state)")
        }
        if report.unmappedGenres.isEmpty {
            Swift.print("Every genre tag maps to the taxonomy.")
        } else {
            Swift.print("Genre tags that map to no genre (albums):")
            for g in report.unmappedGenres.prefix(50) { Swift.print("  \(g.tag) (\(g.albums))") }
        }
    }
}
