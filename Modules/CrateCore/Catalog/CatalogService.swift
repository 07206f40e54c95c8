public import CrateDomain
import CrateFeeds
import Foundation

/// Why the catalog cannot answer, in words a user can act on.
public enum CatalogServiceError: Error, Sendable, CustomStringConvertible {
    case notEnabled
    case unavailable(String)
    case unknownGenre(String)
    case unknownSubcategory(String, genre: String, known: [String])

    public var description: String {
        switch self {
        case .notEnabled:
            "no catalog source is enabled (add one, e.g. applecatalog, to sources.enabled)"
        case .unavailable(let reason):
            "the catalog is unavailable: \(reason)"
        case .unknownGenre(let name):
            "no genre '\(name)'; genres: \(GenreTaxonomy.superGenres.map(\.name).joined(separator: ", "))"
        case let .unknownSubcategory(name, genre, known):
            "\(genre) has no subcategory '\(name)'; it has: \(known.joined(separator: ", "))"
        }
    }
}

/// One page of a genre, as the CLI and the API show it.
public struct GenrePage: Sendable, Codable {
    public var genre: String
    public var subcategories: [String]
    public var page: Int
    public var albums: [Album]
    public var hasMore: Bool
}

/// How the static taxonomy compares with the storefront's live genre list.
public struct TaxonomyReport: Sendable, Codable {
    public struct Row: Sendable, Codable {
        public var genre: String
        public var id: String
        public var liveName: String?
    }
    public var storefront: String
    /// Taxonomy chart ids and what the live list calls them (nil: not in the live list).
    public var chartIDs: [Row]
    /// Live top-level genres no super-genre or subcategory uses.
    public var uncovered: [CatalogGenre]
}

/// The music catalog (the first enabled catalog source: Apple Music today) for the front ends: one catalog (and its
/// cache) and one genre browser (which cancels a superseded genre's fetch) for the runtime's lifetime.
public struct CatalogService: Sendable {
    public let source: (any CatalogSource)?
    let browser: CatalogGenreBrowser?

    init(sources: SourceRegistry) {
        source = sources.plugins.lazy.compactMap { $0 as? any CatalogSource }.first
        browser = source?.catalog.map { CatalogGenreBrowser(catalog: $0) }
    }

    /// The catalog, or why there is none.
    public func client() throws -> any MusicCatalog {
        guard let source else { throw CatalogServiceError.notEnabled }
        guard let catalog = source.catalog else { throw CatalogServiceError.unavailable(source.status.reason ?? "unknown") }
        return catalog
    }

    /// Checks the credentials; works without a usable configuration too (it says what is missing).
    public func auth() async -> CatalogAuthReport {
        guard let source else {
            return CatalogAuthReport(developerToken: .absent, userToken: .absent, messages: [CatalogServiceError.notEnabled.description])
        }
        return await source.authCheck()
    }

    public static func selection(_ genre: String, _ subcategories: [String]) throws -> GenreSelection {
        guard let superGenre = GenreTaxonomy.superGenre(genre) else { throw CatalogServiceError.unknownGenre(genre) }
        var subs: [GenreSubcategory] = []
        for name in subcategories {
            guard let sub = GenreTaxonomy.subcategory(name, in: superGenre) else {
                throw CatalogServiceError.unknownSubcategory(name, genre: superGenre.name, known: superGenre.subcategories.map(\.name))
            }
            if !subs.contains(sub) { subs.append(sub) }
        }
        return GenreSelection(superGenre: superGenre, subcategories: subs)
    }

    /// Page `page` (from 0) of a genre, or of the union of some of its subcategories.
    public func browse(_ genre: String, subcategories: [String] = [], page: Int = 0) async throws -> GenrePage {
        let selection = try Self.selection(genre, subcategories)
        guard let browser else { _ = try client(); throw CatalogServiceError.notEnabled }
        let found = try await browser.browse(selection, page: max(0, page))
        return GenrePage(genre: selection.superGenre.name, subcategories: selection.subcategories.map(\.name),
                         page: found.index, albums: found.albums, hasMore: found.hasMore)
    }

    /// A genre named by taxonomy name or id, or a raw Apple genre id, as the id charts take.
    public static func chartGenreID(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        if text.allSatisfy(\.isNumber) { return text }
        if let g = GenreTaxonomy.superGenre(text) { return g.chartGenreIDs.first }
        return GenreTaxonomy.subcategory(text)?.genreIDs.first
    }

    /// Compares the taxonomy's ids with the live `/genres` list of the storefront.
    public func taxonomyReport() async throws -> TaxonomyReport {
        let client = try client()
        let live = try await client.genres()
        let byID = Dictionary(live.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [TaxonomyReport.Row] = []
        for g in GenreTaxonomy.superGenres {
            for id in g.chartGenreIDs { rows.append(.init(genre: g.name, id: id, liveName: byID[id]?.name)) }
        }
        let used = GenreTaxonomy.allGenreIDs
        let uncovered = live.filter { !used.contains($0.id) && $0.id != "34" }
        return TaxonomyReport(storefront: try await client.storefront(), chartIDs: rows, uncovered: uncovered)
    }
}


/// How a catalog failure reaches an HTTP client: a status, a code and the user-facing line.
public struct CatalogFailure: Sendable {
    public var status: Int
    public var code: String
    public var message: String

    /// nil for errors that are not the catalog's.
    public init?(_ error: any Error) {
        switch error {
        case let e as CatalogServiceError:
            switch e {
            case .notEnabled, .unavailable: (status, code) = (503, "catalog_unavailable")
            case .unknownGenre, .unknownSubcategory: (status, code) = (400, "bad_request")
            }
            message = e.description
        case let e as any CatalogClassifiedError:
            switch e.catalogErrorKind {
            case .notFound: (status, code) = (404, "not_found")
            case .invalidRequest: (status, code) = (400, "bad_request")
            case .rateLimited: (status, code) = (503, "rate_limited")
            case .cancelled: (status, code) = (503, "cancelled")
            case .user: (status, code) = (403, "catalog_user")
            case .auth: (status, code) = (503, "catalog_auth")
            case .previewOnly: (status, code) = (409, "preview_only")
            case .failed: (status, code) = (502, "catalog_failed")
            }
            message = e.description
        default:
            return nil
        }
    }
}
