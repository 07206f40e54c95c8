import CrateDomain
import CrateFeeds
import Foundation

/// Facts for a test album: `id` also makes its identity ("local-ID").
func facts(_ id: Int64, artist: Int64 = 1, genre: String? = nil, year: Int? = nil, added: Double = 0, plays: Int = 0,
           lastPlayed: Double? = nil, opinion: Opinion? = nil) -> AlbumFacts {
    AlbumFacts(id: id, identity: "local-\(id)", artistID: artist, artist: "Artist \(artist)", genre: genre, year: year,
               addedAt: Date(timeIntervalSince1970: added), playCount: plays,
               lastPlayedAt: lastPlayed.map(Date.init(timeIntervalSince1970:)), opinion: opinion)
}

/// The library as an array: local signals' pure logic is tested here, the database in CrateCoreTests.
struct ArrayLibrary: LocalAlbumLibrary {
    let all: [AlbumFacts]

    func albumFacts() async throws -> [AlbumFacts] { all }

    func albums(ids: [Int64]) async throws -> [Album] {
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        return ids.compactMap { byID[$0] }.map { f in
            Album(id: f.id, identity: f.identity, title: "Album \(f.id)", artist: f.artist, date: nil, year: f.year, genre: f.genre,
                  isCompilation: false, trackCount: 10, discCount: 1, duration: 2400, addedAt: f.addedAt, opinion: f.opinion,
                  playCount: f.playCount, lastPlayedAt: f.lastPlayedAt)
        }
    }

    func signal(_ id: SignalID) -> LocalSignal {
        LocalSignal(id, snapshot: LocalSnapshot(facts: all), library: self)
    }
}

/// A catalog answering from fixed lists; `failing` calls throw. Records the calls it got.
actor CallLog {
    private(set) var calls: [String] = []
    func add(_ call: String) { calls.append(call) }
}

struct ListCatalog: FeedCatalog {
    var recent: [Album] = []
    var heavy: [Album] = []
    var library: [Album] = []
    var recommended: [Album] = []
    var charts: [String: [Album]] = [:]          // genre id ("" = overall) → albums
    var search: [String: [Album]] = [:]
    var related: [String: [Album]] = [:]
    var failing: Set<String> = []
    let log = CallLog()

    private func answer(_ name: String, _ albums: [Album]) async throws -> [Album] {
        await log.add(name)
        if failing.contains(name.components(separatedBy: ":")[0]) { throw FakeError(description: "\(name) is down") }
        return albums
    }

    func recentlyPlayedAlbums(limit: Int) async throws -> [Album] { try await answer("recent", Array(recent.prefix(limit))) }
    func heavyRotationAlbums(limit: Int) async throws -> [Album] { try await answer("heavy", Array(heavy.prefix(limit))) }
    func libraryAlbums(limit: Int) async throws -> [Album] { try await answer("library", Array(library.prefix(limit))) }
    func recommendedAlbums(limit: Int) async throws -> [Album] { try await answer("recommendations", Array(recommended.prefix(limit))) }
    func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> [Album] {
        try await answer("charts:\(genreID ?? "")@\(offset)", Array((charts[genreID ?? ""] ?? []).dropFirst(offset).prefix(limit)))
    }
    func searchAlbums(term: String, offset: Int, limit: Int) async throws -> [Album] {
        try await answer("search:\(term)", Array((search[term] ?? []).dropFirst(offset).prefix(limit)))
    }
    func relatedAlbums(albumID: String, limit: Int) async throws -> [Album] {
        try await answer("related:\(albumID)", Array((related[albumID] ?? []).prefix(limit)))
    }
}

/// A catalog album with genres and a release date.
func catalogAlbum(_ key: String, genres: [String] = [], date: String? = nil, artist: String = "Artist") -> Album {
    var a = album(key)
    a.genres = genres
    a.date = date
    a.artist = artist
    return a
}
