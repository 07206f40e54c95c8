import ArgumentParser
import CrateCore
import CrateDomain

struct HomeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "home", abstract: "Recently played albums and playlists, recent plays, and top artists.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        let home = try userFacing { try store.home() }
        if json { return try printJSON(home) }
        print("Recent albums, playlists and stations (\(home.recentItems.count))")
        for item in home.recentItems {
            if let a = item.album { print("  album     " + Line.album(a)) }
            if let p = item.playlist { print("  playlist  " + Line.playlist(p)) }
            if let s = item.station { print("  station   \(s.name)  \(s.url)") }
        }
        print("Recent plays")
        home.recentPlays.forEach { print("  " + Line.track($0.track)) }
        print(home.topArtistsBasis == "top" ? "Top artists, last \(Home.topArtistDays) days" : "Recent artists (no plays in the last \(Home.topArtistDays) days)")
        for top in home.topArtists {
            print("  " + Line.artist(top.artist) + (top.plays > 0 ? "  \(top.plays) plays" : ""))
        }
    }
}

struct LyricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lyrics", abstract: "Show a track's lyrics.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Track id.") var track: Int64

    func run() async throws {
        let runtime = try await options.runtime()
        let found = try await userFacingAsync { () -> (Track, Lyrics?) in
            guard let t = try runtime.collection.track(id: track) else { throw CLIError("no track has id \(track)") }
            return (t, try await runtime.lyrics.lyrics(for: t))
        }
        guard let lyrics = found.1 else { return print("No lyrics for \(found.0.title) — \(found.0.artist).") }
        print("\(found.0.title) — \(found.0.artist)  (\(lyrics.provider))\n")
        print(lyrics.text)
    }
}
