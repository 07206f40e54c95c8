public import Foundation

// What any music catalog source (Apple Music today) offers Core, the feeds and the front ends. Core and the apps
// name only these protocols and values, never a catalog plugin (Docs/ARCHITECTURE.md, "Catalogs").

/// A genre of the catalog's top-charts list. `parentID` builds the hierarchy ("34", Music, is the root).
public struct CatalogGenre: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var parentID: String?

    public init(id: String, name: String, parentID: String? = nil) {
        self.id = id
        self.name = name
        self.parentID = parentID
    }
}

/// One page of a paged listing. `next` is Apple's root-relative link to the rest, nil at the end.
public struct CatalogPage<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var items: [Item]
    public var next: String?

    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }

    /// The `offset` of the next page, to pass back as `offset:`; nil at the end.
    public var nextOffset: Int? {
        next.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "offset" }?.value }.flatMap { Int($0) }
    }
}

/// A personal album rating: Apple accepts only these two values.
public enum CatalogRating: Int, Sendable, Codable {
    case love = 1
    case dislike = -1
}

/// What `crate catalog auth` prints: each token's state and, when something is wrong, what exactly.
public struct CatalogAuthReport: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        case ok, problem, absent
    }

    public var developerToken: State
    /// Why the developer token does not work (bad key file, expired, refused with 401, …).
    public var developerTokenProblem: String?
    /// When the token in use runs out (a signed one is renewed before then).
    public var developerTokenExpires: Date?
    public var userToken: State
    public var userTokenProblem: String?
    /// The storefront catalog calls use (the account's when the user token works).
    public var storefront: String?
    /// The report as lines for a person, one per finding.
    public var messages: [String]

    public init(developerToken: State, developerTokenProblem: String? = nil, developerTokenExpires: Date? = nil,
                userToken: State, userTokenProblem: String? = nil, storefront: String? = nil, messages: [String] = []) {
        self.developerToken = developerToken
        self.developerTokenProblem = developerTokenProblem
        self.developerTokenExpires = developerTokenExpires
        self.userToken = userToken
        self.userTokenProblem = userTokenProblem
        self.storefront = storefront
        self.messages = messages
    }

    /// Catalog calls work, and personal ones too unless there is simply no user token.
    public var isOK: Bool { developerToken == .ok && userToken != .problem }
}

/// The two catalog calls genre browsing needs.
public protocol CatalogAlbumPaging: Sendable {
    /// Albums of the most-played chart of a genre (the overall chart when nil); `limit` ≤ 50.
    func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> CatalogPage<Album>
    /// Albums matching a search term, by relevance; `limit` ≤ 25.
    func searchAlbums(term: String, offset: Int, limit: Int) async throws -> CatalogPage<Album>
}

/// A music catalog: charts, search, albums, the listener's history and library, ratings.
/// Errors should conform to `CatalogClassifiedError` so front ends can answer with the right status.
public protocol MusicCatalog: CatalogAlbumPaging {
    /// Whether personal calls (`/me/...`) can work: a user token is configured.
    var hasUserToken: Bool { get }
    func genres() async throws -> [CatalogGenre]
    /// Grouped results (albums, songs, artists) for an external search.
    func search(term: String, limit: Int) async throws -> [SearchGroupResult]
    /// An album with its tracks, artwork URLs at `artworkSize` pixels.
    func album(id: String, artworkSize: Int) async throws -> (album: Album, tracks: [Track])
    func albums(ids: [String]) async throws -> [Album]
    func relatedAlbums(albumID: String, limit: Int) async throws -> [Album]
    /// `maxPages` bounds the requests (nil: as many as `limit` needs).
    func recentlyPlayedAlbums(limit: Int, maxPages: Int?) async throws -> [Album]
    func heavyRotationAlbums(limit: Int, maxPages: Int?) async throws -> [Album]
    func recommendedAlbums(limit: Int) async throws -> [Album]
    func libraryAlbums(limit: Int) async throws -> [Album]
    func addToLibrary(albumIDs: [String]) async throws
    func addToFavorites(albumIDs: [String]) async throws
    func rate(albumID: String, _ rating: CatalogRating) async throws
    func deleteRating(albumID: String) async throws
    func storefront() async throws -> String
    func authCheck() async -> CatalogAuthReport
}

extension MusicCatalog {
    public func album(id: String) async throws -> (album: Album, tracks: [Track]) { try await album(id: id, artworkSize: 600) }
    public func recentlyPlayedAlbums(limit: Int) async throws -> [Album] { try await recentlyPlayedAlbums(limit: limit, maxPages: nil) }
    public func heavyRotationAlbums(limit: Int) async throws -> [Album] { try await heavyRotationAlbums(limit: limit, maxPages: nil) }
}

/// A source plugin that is a catalog (and searches it: `CatalogSearchingSource`).
public protocol CatalogSource: CatalogSearchingSource {
    /// The catalog when the source is usable; nil with the reason in `status` otherwise.
    var catalog: (any MusicCatalog)? { get }
    /// Whether the user set up any credential at all (a catalog nobody configured is quietly unavailable).
    var isConfigured: Bool { get }
    /// Checks the credentials; works without a usable configuration too (it says what is missing).
    func authCheck() async -> CatalogAuthReport
}

/// How a catalog failure should reach a client, whatever the catalog.
public enum CatalogErrorKind: Sendable, Hashable {
    case notFound, invalidRequest, rateLimited, cancelled
    /// The listener's token or subscription.
    case user
    /// The developer credentials.
    case auth
    /// A track that only plays as a preview.
    case previewOnly
    /// The service failed or answered nonsense.
    case failed
}

/// An error a catalog plugin throws, classified for front ends.
public protocol CatalogClassifiedError: Error, CustomStringConvertible {
    var catalogErrorKind: CatalogErrorKind { get }
}
