public import CrateDomain
import Foundation

/// The catalog calls catalog signals make. The app adapts its Apple Music client to this; each call
/// should cost one request where it can (signals ask for at most one page).
public protocol FeedCatalog: Sendable {
    func recentlyPlayedAlbums(limit: Int) async throws -> [Album]
    func heavyRotationAlbums(limit: Int) async throws -> [Album]
    func libraryAlbums(limit: Int) async throws -> [Album]
    func recommendedAlbums(limit: Int) async throws -> [Album]
    /// Most played albums, overall (nil) or of a chart genre id, from `offset`.
    func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> [Album]
    func searchAlbums(term: String, offset: Int, limit: Int) async throws -> [Album]
    func relatedAlbums(albumID: String, limit: Int) async throws -> [Album]
}

/// Page sizes that keep one catalog call to one request (fact sheet: charts 50, search 25, history 10).
enum FeedPageSize {
    static let charts = 50
    static let search = 25
    static let history = 10
    static let library = 100
}
