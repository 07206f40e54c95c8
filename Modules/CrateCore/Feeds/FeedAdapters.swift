import CrateDomain
import CrateFeeds
import CrateStorage
import Foundation

/// The library as the local signals read it.
struct StoreFeedLibrary: LocalAlbumLibrary {
    let store: LibraryStore

    func albumFacts() async throws -> [AlbumFacts] { try store.albumFacts() }
    func albums(ids: [Int64]) async throws -> [Album] { try store.albums(ids: ids) }
}

/// The music catalog as the catalog signals call it; each call is one page, so one request (history
/// pages mixing in playlists give fewer albums rather than a second, later round trip).
struct MusicFeedCatalog: FeedCatalog {
    let client: any MusicCatalog

    func recentlyPlayedAlbums(limit: Int) async throws -> [Album] { try await client.recentlyPlayedAlbums(limit: limit, maxPages: 1) }
    func heavyRotationAlbums(limit: Int) async throws -> [Album] { try await client.heavyRotationAlbums(limit: limit, maxPages: 1) }
    func libraryAlbums(limit: Int) async throws -> [Album] { try await client.libraryAlbums(limit: limit) }
    func recommendedAlbums(limit: Int) async throws -> [Album] { try await client.recommendedAlbums(limit: limit) }
    func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> [Album] {
        try await client.chartAlbums(genreID: genreID, offset: offset, limit: limit).items
    }
    func searchAlbums(term: String, offset: Int, limit: Int) async throws -> [Album] {
        try await client.searchAlbums(term: term, offset: offset, limit: limit).items
    }
    func relatedAlbums(albumID: String, limit: Int) async throws -> [Album] {
        try await client.relatedAlbums(albumID: albumID, limit: limit)
    }
}
