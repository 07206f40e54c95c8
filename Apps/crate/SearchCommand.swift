import ArgumentParser
import CrateCore
import CrateDomain
import FoundationEssentials

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the library: artists, albums, tracks, playlists, lyrics and stations.",
        discussion: """
            Every word matches by prefix ("jud bea" finds Hey Jude by The Beatles); accents and punctuation are \
            ignored ("hele" finds Hélène, "rem" finds R.E.M.). Beets-style terms narrow it: artist:WORD album:WORD \
            title:WORD genre:WORD year:1990..1999 added:-30d.. ^WORD (exclude), and a last term like year- or title+ sorts.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Search words and terms.") var query: [String]
    @Option(help: "local (the library) or external (catalog sources).") var scope: SearchScope = .local
    @Option(help: "Only this group, paged: artists, albums, tracks, playlists, lyrics, stations.") var group: SearchGroup?
    @Option(help: "Results per group (default 5; 50 with --group).") var limit: Int?
    @Option(help: "Skip this many results of the group.") var offset = 0
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        let text = query.joined(separator: " ")
        let groups = group.map { [$0] } ?? SearchGroup.allCases
        let results = try await userFacingAsync {
            try await runtime.search.search(text, scope: scope, groups: groups, offset: offset, limit: limit ?? (group == nil ? 5 : 50))
        }
        if json { return try printJSON(results) }
        if results.groups.isEmpty { return print("Nothing matches '\(text)'.") }
        for g in results.groups {
            let shown = g.offset + g.count
            print("\(g.group.rawValue.capitalized) (\(g.total))\(g.total > shown ? "  — more: --group \(g.group.rawValue) --offset \(shown)" : "")")
            g.artists?.forEach { print("  " + Line.artist($0)) }
            g.albums?.forEach { print("  " + Line.album($0)) }
            g.tracks?.forEach { print("  " + Line.track($0)) }
            g.playlists?.forEach { print("  " + Line.playlist($0)) }
            g.lyrics?.forEach { print("  " + Line.track($0.track) + "\n        \($0.snippet)") }
            g.stations?.forEach { print("  \(pad(String($0.id), 5))\($0.name)  \($0.url)") }
            g.catalog?.forEach { print("  \($0.source):\($0.id)  \($0.title)\($0.subtitle.map { " — \($0)" } ?? "")") }
        }
    }
}

/// `userFacing` for async bodies.
func userFacingAsync<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let error as CLIError { throw error } catch {
        throw CLIError(ErrorText.describe(error))
    }
}
