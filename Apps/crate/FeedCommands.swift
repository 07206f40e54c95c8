import ArgumentParser
import CrateCore
import CrateDomain
import CrateFeeds
import Foundation
import CrateClient

struct Wall: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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
        let page = try await userFacingAsync { () async throws -> FeedPage in
            switch try await FeedAccess.open(options) {
            case .daemon(let client):
                if let dial { _ = try await client.send("PUT", "dial", body: ["dial": dial], as: DialAnswer.self) }
                let q = FeedAccess.query([("artwork", String(feed.artwork))])
                if feed.more { return try await client.send("POST", "wall/more\(q)", as: FeedPage.self) }
                if regenerate || dial != nil { return try await client.send("POST", "wall/regenerate\(q)", as: FeedPage.self) }
                return try await client.send("GET", "wall\(q)", as: FeedPage.self)
            case .direct(let feeds):
                if feed.more { throw CLIError("--more continues the daemon's wall: start crated (or `make run`) first") }
                if let dial { try await feeds.setDial(dial, regenerate: false) }
                return await feeds.regenerateWall(reason: "crate wall", artworkSize: feed.artwork)
            }
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
        let page = try await userFacingAsync { () async throws -> FeedPage in
            switch try await FeedAccess.open(options) {
            case .daemon(let client):
                let q = FeedAccess.query(subcategories.map { ("sub", $0) } + [("artwork", String(feed.artwork))])
                let path = "genres/\(FeedAccess.segment(genre))"
                return try await client.send(feed.more ? "POST" : "GET", feed.more ? "\(path)/more\(q)" : "\(path)\(q)", as: FeedPage.self)
            case .direct(let feeds):
                if feed.more { throw CLIError("--more continues the daemon's genre feed: start crated (or `make run`) first") }
                return try await feeds.genre(genre, subcategories: subcategories, artworkSize: feed.artwork)
            }
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

struct DialAnswer: Codable {
    var dial: String
    var title: String
    var index: Int
}

struct Dial: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set the Crate Dial: how personal (My Crate) or how random (Mystery Crate) the feeds are.",
        discussion: "A change is kept; a running crated regenerates its wall once the dial has been still for a second.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "my, mostly-mine, mixed, mostly-mystery, mystery (or 0-4).") var position: String?

    func run() async throws {
        let current = try await userFacingAsync { () async throws -> CrateDial in
            switch try await FeedAccess.open(options) {
            case .daemon(let client):
                let answer = position == nil
                    ? try await client.send("GET", "dial", as: DialAnswer.self)
                    : try await client.send("PUT", "dial", body: ["dial": position ?? ""], as: DialAnswer.self)
                return CrateDial(parsing: answer.dial) ?? .default
            case .direct(let feeds):
                if let position { return try await feeds.setDial(position, regenerate: false) }
                return await feeds.dial()
            }
        }
        for dial in CrateDial.allCases {
            print("\(dial == current ? "▶" : " ") \(dial.index)  \(dial.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0))\(dial.title)")
        }
    }
}

struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

/// Like and dislike on the command line, through crated when it runs.
enum OpinionCommand {
    enum Action { case set(Opinion), clear(Opinion) }

    static func run(_ options: GlobalOptions, _ words: [String], _ action: Action, json: Bool) async throws {
        let ref = words.joined(separator: " ")
        guard !ref.isEmpty else { throw CLIError("name the album: its id, its name, or applemusic:ID") }
        let outcome = try await userFacingAsync { () async throws -> OpinionOutcome in
            switch try await FeedAccess.open(options) {
            case .daemon(let client):
                let path: String, method: String
                switch action {
                case .set(let o): (path, method) = (o == .favorite ? "likes/" : "dislikes/albums/", "PUT")
                case .clear(let o): (path, method) = (o == .favorite ? "likes/" : "dislikes/albums/", "DELETE")
                }
                return try await client.send(method, path + FeedAccess.segment(ref), as: OpinionOutcome.self)
            case .direct(let feeds):
                switch action {
                case .set(.favorite): return try await feeds.like(ref)
                case .set(.dislike): return try await feeds.dislike(ref)
                case .clear(let o): return try await feeds.clearOpinion(ref, only: o)
                }
            }
        }
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
        abstract: "Check the feeds.", subcommands: [Diagnose.self])

    struct Diagnose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check likes and dislikes, the dial's weight tables and every signal; list unmapped genre tags.",
            discussion: "Each signal is asked for a few albums (catalog signals make their requests). Exits 1 when a check fails.")

        @OptionGroup var options: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let report = try await userFacingAsync { () async throws -> FeedDiagnosis in
                switch try await FeedAccess.open(options) {
                case .daemon(let client): return try await client.send("GET", "feeds/diagnose", as: FeedDiagnosis.self)
                case .direct(let feeds): return await feeds.diagnose()
                }
            }
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
