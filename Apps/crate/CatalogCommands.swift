import ArgumentParser
import CrateCore
import CrateDomain
import Foundation

struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "The Apple Music catalog: genres, charts, search, albums, your signals, ratings.",
        discussion: "Needs sources.applecatalog.team_id, key_id and key_path (or developer_token); the /me commands, "
            + "ratings and library-add also need a Music-User-Token (CRATE_SOURCES_APPLECATALOG_USER_TOKEN or sources.applecatalog.user_token_file).",
        subcommands: [CatalogAuth.self, CatalogGenres.self, CatalogCharts.self, CatalogBrowse.self, CatalogSearch.self,
                      CatalogAlbum.self, CatalogMe.self, CatalogRate.self, CatalogLibraryAdd.self, CatalogTaxonomy.self])
}

/// Options of every catalog command.
struct CatalogOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false
}

func albumLine(_ a: Album) -> String {
    let year = a.year.map { " (\($0))" } ?? ""
    let genre = a.genre.map { "  [\($0)]" } ?? ""
    return "\(pad(a.externalID ?? String(a.id), 12))\(a.artist) — \(a.title)\(year)\(genre)"
}

struct CatalogAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auth", abstract: "Check the developer and user tokens and say what is wrong.")
    @OptionGroup var options: CatalogOptions
    func run() async throws {
        let runtime = try await options.global.runtime()
        let report = await runtime.catalog.auth()
        if options.json { return try printJSON(report) }
        report.messages.forEach { print($0) }
        if report.developerToken.rawValue != "ok" { throw ExitCode(1) }
    }
}

struct CatalogGenres: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "genres", abstract: "Crate's genres and subcategories with their Apple genre ids; --live lists the storefront's own.")
    @OptionGroup var options: CatalogOptions
    @Flag(help: "Ask the catalog for its top-charts genre list.") var live = false
    func run() async throws {
        if !live {
            if options.json { return try printJSON(GenreTaxonomy.superGenres) }
            for g in GenreTaxonomy.superGenres {
                print("\(g.name)  (charts: \(g.chartGenreIDs.joined(separator: ", ")))")
                for s in g.subcategories { print("    \(pad(s.name, 26))ids \(s.genreIDs.joined(separator: ",")), search \"\(s.searchTerm)\"") }
            }
            return
        }
        let runtime = try await options.global.runtime()
        let genres = try await userFacingAsync { try await runtime.catalog.client().genres() }
        if options.json { return try printJSON(genres) }
        genres.forEach { print("\(pad($0.id, 6))\($0.name)\($0.parentID.map { "  (parent \($0))" } ?? "")") }
    }
}

struct CatalogCharts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "charts", abstract: "Most-played albums, overall or for a genre.")
    @OptionGroup var options: CatalogOptions
    @Option(help: "Genre: a Crate genre or subcategory name, or an Apple genre id.") var genre: String?
    @Option(help: "How many (at most 50 a request; more pages follow).") var limit = 25
    @Option(help: "Skip this many.") var offset = 0
    func run() async throws {
        let runtime = try await options.global.runtime()
        let id = CatalogService.chartGenreID(genre)
        if let genre, id == nil { throw CLIError(CatalogServiceError.unknownGenre(genre).description) }
        let page = try await userFacingAsync {
            try await runtime.catalog.client().chartAlbums(genreID: id, offset: max(0, offset), limit: max(1, limit))
        }
        if options.json { return try printJSON(page.items) }
        page.items.forEach { print(albumLine($0)) }
    }
}

struct CatalogBrowse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse", abstract: "Albums of a genre (its charts) or of some of its subcategories (search), 50 a page.")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "A genre: Rock, Pop, Hip-Hop, Electronic, R&B, Jazz, Country, Classical, Latin.") var genre: String
    @Argument(help: "Subcategories of that genre (their union).") var subcategories: [String] = []
    @Option(help: "Page, from 1.") var page = 1
    func run() async throws {
        let runtime = try await options.global.runtime()
        let found = try await userFacingAsync {
            try await runtime.catalog.browse(genre, subcategories: subcategories, page: page - 1)
        }
        if options.json { return try printJSON(found) }
        print("\(found.genre)\(found.subcategories.isEmpty ? "" : ": " + found.subcategories.joined(separator: " + "))  page \(found.page + 1)"
            + (found.hasMore ? "  (more: --page \(found.page + 2))" : ""))
        found.albums.forEach { print(albumLine($0)) }
    }
}

struct CatalogSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search the catalog: artists, albums, songs.")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "Words.") var term: [String]
    @Option(help: "Results per group (at most 25).") var limit = 10
    func run() async throws {
        let runtime = try await options.global.runtime()
        let groups = try await userFacingAsync { try await runtime.catalog.client().search(term: term.joined(separator: " "), limit: limit) }
        if options.json { return try printJSON(groups) }
        if groups.isEmpty { return print("Nothing in the catalog matches.") }
        for g in groups {
            print("\(g.group.rawValue.capitalized) (\(g.total))")
            g.catalog?.forEach { print("  \(pad($0.id, 12))\($0.title)\($0.subtitle.map { " — \($0)" } ?? "")") }
        }
    }
}

struct CatalogAlbum: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "album", abstract: "A catalog album with its tracks.")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "The catalog album id.") var id: String
    func run() async throws {
        let runtime = try await options.global.runtime()
        let (album, tracks) = try await userFacingAsync { try await runtime.catalog.client().album(id: id) }
        struct Out: Encodable { var album: Album; var tracks: [Track] }
        if options.json { return try printJSON(Out(album: album, tracks: tracks)) }
        print(albumLine(album))
        if let url = album.artworkURL { print("  artwork \(url)") }
        for t in tracks {
            let number = (t.discNumber ?? 1) > 1 ? "\(t.discNumber ?? 1)-\(t.trackNumber ?? 0)" : "\(t.trackNumber ?? 0)"
            print("  \(pad(number, 5))\(t.title)  \(clock(t.duration))\(t.previewURL == nil ? "" : "  (preview)")")
        }
        print("Catalog tracks play in full only in Apple's players; Crate keeps their previews.")
    }
}

struct CatalogMe: AsyncParsableCommand {
    enum Signal: String, ExpressibleByArgument, CaseIterable { case recent, heavy, recommendations, library }
    static let configuration = CommandConfiguration(
        commandName: "me", abstract: "Your albums: recent, heavy (rotation), recommendations, library (needs a user token).")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "recent, heavy, recommendations or library.") var signal: Signal
    @Option(help: "How many.") var limit = 25
    func run() async throws {
        let runtime = try await options.global.runtime()
        let albums = try await userFacingAsync { () -> [Album] in
            let client = try runtime.catalog.client()
            switch signal {
            case .recent: return try await client.recentlyPlayedAlbums(limit: limit)
            case .heavy: return try await client.heavyRotationAlbums(limit: limit)
            case .recommendations: return try await client.recommendedAlbums(limit: limit)
            case .library: return try await client.libraryAlbums(limit: limit)
            }
        }
        if options.json { return try printJSON(albums) }
        if albums.isEmpty { return print("None.") }
        albums.forEach { print(albumLine($0)) }
    }
}

struct CatalogRate: AsyncParsableCommand {
    enum Value: String, ExpressibleByArgument, CaseIterable { case love, dislike, clear }
    static let configuration = CommandConfiguration(commandName: "rate", abstract: "Rate a catalog album: love, dislike, or clear.")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "The catalog album id.") var album: String
    @Argument(help: "love, dislike or clear.") var value: Value
    func run() async throws {
        let runtime = try await options.global.runtime()
        try await userFacingAsync {
            let client = try runtime.catalog.client()
            switch value {
            case .love: try await client.rate(albumID: album, .love)
            case .dislike: try await client.rate(albumID: album, .dislike)
            case .clear: try await client.deleteRating(albumID: album)
            }
        }
        print("Rated \(album): \(value.rawValue)")
    }
}

struct CatalogLibraryAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "library-add", abstract: "Add catalog albums to your Apple Music library.")
    @OptionGroup var options: CatalogOptions
    @Argument(help: "Catalog album ids.") var albums: [String]
    func run() async throws {
        let runtime = try await options.global.runtime()
        try await userFacingAsync { try await runtime.catalog.client().addToLibrary(albumIDs: albums) }
        print("Added \(counted(albums.count, "album")) to the library.")
    }
}

struct CatalogTaxonomy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taxonomy-report", abstract: "Compare Crate's genre taxonomy with the storefront's live genre list.")
    @OptionGroup var options: CatalogOptions
    func run() async throws {
        let runtime = try await options.global.runtime()
        let report = try await userFacingAsync { try await runtime.catalog.taxonomyReport() }
        if options.json { return try printJSON(report) }
        print("Storefront \(report.storefront): chart genres of the taxonomy")
        for row in report.chartIDs {
            print("  \(pad(row.genre, 12))\(pad(row.id, 6))\(row.liveName.map { "live: \($0)" } ?? "NOT in the live list")")
        }
        print("Live genres no super-genre or subcategory uses (\(report.uncovered.count))")
        report.uncovered.forEach { print("  \(pad($0.id, 6))\($0.name)") }
    }
}
