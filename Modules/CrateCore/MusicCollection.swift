public import CrateDomain
import CrateStorage
public import Foundation

/// What the library holds, for front ends: albums, tracks, artists, favorites and dislikes, playlists, stations, home.
/// The store stays inside Core; front ends read and edit through this, and each edit publishes its `library` event
/// after the write, whichever front end made it.
public struct MusicCollection: Sendable {
    let store: LibraryStore
    let events: EventBus

    public func counts() throws -> LibraryCounts { try store.counts() }
    public func queueCount() throws -> Int { try store.queueCount() }
    public func home(now: Date = Date()) throws -> Home { try store.home(now: now) }

    // Albums, tracks, artists.
    public func album(id: Int64) throws -> Album? { try store.album(id: id) }
    public func albums(sort: ListSort<AlbumSort> = ListSort(.artist), includeDisliked: Bool = false,
                       artistID: Int64? = nil) throws -> [Album] {
        try store.albums(sort: sort, includeDisliked: includeDisliked, artistID: artistID)
    }
    public func albums(ids: [Int64]) throws -> [Album] { try store.albums(ids: ids) }
    public func resolveAlbum(_ query: String) throws -> Album { try store.resolveAlbum(query) }
    public func track(id: Int64) throws -> Track? { try store.track(id: id) }
    /// The library's track for a file, by its full path (or a path it is known by).
    public func trackID(path: String) throws -> Int64? { try store.trackIDs(forPaths: [path])[path] }
    public func tracks(albumID: Int64) throws -> [Track] { try store.tracks(albumID: albumID) }
    /// `trackIDs`, then the album's tracks in album order: what a request naming tracks and/or an album adds.
    public func trackIDs(_ trackIDs: [Int64]?, albumID: Int64?) throws -> [Int64] {
        try (trackIDs ?? []) + (albumID.map { try store.tracks(albumID: $0).map(\.id) } ?? [])
    }
    public func tracks(sort: ListSort<TrackSort>, offset: Int = 0, limit: Int = 500) throws -> [Track] {
        try store.tracks(sort: sort, offset: offset, limit: limit)
    }
    public func artist(id: Int64) throws -> Artist? { try store.artist(id: id) }
    public func resolveArtist(_ query: String) throws -> Artist { try store.resolveArtist(query) }
    public func albumArtists(order: SortDirection = .ascending, favoritesFirst: Bool = false) throws -> [Artist] {
        try store.albumArtists(order: order, favoritesFirst: favoritesFirst)
    }

    // Pages, for clients that walk the library a page at a time (see LibraryStore+Pages).
    public func albums(sort: ListSort<AlbumSort>, includeDisliked: Bool = false, offset: Int, limit: Int) throws -> [Album] {
        try store.albums(sort: sort, includeDisliked: includeDisliked, offset: offset, limit: limit)
    }
    /// One cheap row per library album, to choose from before reading the chosen ones in full.
    public func albumFacts() throws -> [AlbumFacts] { try store.albumFacts() }
    public func albumArtistID(named name: String) throws -> Int64? { try store.albumArtistID(named: name) }
    public func albumArtistsWithArtwork() throws -> Set<Int64> { try store.albumArtistsWithArtwork() }
    public func tracksInStoredOrder(offset: Int, limit: Int) throws -> [Track] {
        try store.tracksInStoredOrder(offset: offset, limit: limit)
    }
    public func tracks(ids: [Int64]) throws -> [Track] { try store.tracks(ids: ids) }
    public func randomTracks(count: Int, genre: String? = nil, years: ClosedRange<Int>? = nil) throws -> [Track] {
        try store.randomTracks(count: count, genre: genre, years: years)
    }
    public func tracks(genre: String, offset: Int, limit: Int) throws -> [Track] {
        try store.tracks(genre: genre, offset: offset, limit: limit)
    }
    public func genreCounts() throws -> [GenreCount] { try store.genreCounts() }

    // Favorites and dislikes.
    public func favorites() throws -> FavoritesList { try store.favorites() }
    public func favoriteTracks() throws -> [Track] { try store.favoriteTracks() }
    public func opinion(_ kind: FavoriteKind, id: Int64) throws -> Opinion? { try store.opinion(kind, id: id) }
    public func setOpinion(_ kind: FavoriteKind, id: Int64, _ opinion: Opinion?) throws {
        try store.setOpinion(kind, id: id, opinion)
        events.publish(.library(.opinion(kind: kind, id: String(id), opinion)))
    }
    /// Clears `only` that opinion (a favorite's removal leaves a dislike alone); answers the opinion now held.
    @discardableResult
    public func clearOpinion(_ kind: FavoriteKind, id: Int64, only: Opinion) throws -> Opinion? {
        let held = try store.opinion(kind, id: id)
        guard held == only else { return held }
        try setOpinion(kind, id: id, nil)
        return nil
    }

    // Playlists.
    public func playlists(sort: ListSort<PlaylistSort> = ListSort(.title)) throws -> [Playlist] { try store.playlists(sort: sort) }
    public func playlist(id: Int64) throws -> Playlist? { try store.playlist(id: id) }
    public func resolvePlaylist(_ query: String) throws -> Playlist { try store.resolvePlaylist(query) }
    public func playlistEntries(id: Int64, sort: ListSort<PlaylistTrackSort> = ListSort(.manual)) throws -> [PlaylistEntry] {
        try store.playlistEntries(id: id, sort: sort)
    }
    /// A new playlist, empty or with `trackIDs`: one change, one event.
    public func createPlaylist(name: String, trackIDs: [Int64] = []) throws -> Playlist {
        let made = try store.createPlaylist(name: name)
        if !trackIDs.isEmpty { try store.addToPlaylist(id: made.id, trackIDs: trackIDs, at: nil) }
        events.publish(.library(.playlist(id: made.id, .created)))
        return made
    }
    /// Puts `trackIDs` in place of the playlist's tracks (MPD's `save … replace`).
    public func replacePlaylistTracks(id: Int64, with trackIDs: [Int64]) throws {
        try store.setPlaylistTracks(id: id, trackIDs: trackIDs, now: Date())
        events.publish(.library(.playlist(id: id, .replaced(count: trackIDs.count))))
    }
    public func renamePlaylist(id: Int64, to name: String) throws {
        try store.renamePlaylist(id: id, to: name)
        events.publish(.library(.playlist(id: id, .renamed)))
    }
    public func deletePlaylist(id: Int64) throws {
        try store.deletePlaylist(id: id)
        events.publish(.library(.playlist(id: id, .deleted)))
    }
    public func addToPlaylist(id: Int64, trackIDs: [Int64], at index: Int? = nil) throws {
        try store.addToPlaylist(id: id, trackIDs: trackIDs, at: index)
        events.publish(.library(.playlist(id: id, .added(count: trackIDs.count))))
    }
    public func removeFromPlaylist(id: Int64, at indexes: [Int]) throws {
        try store.removeFromPlaylist(id: id, at: indexes)
        events.publish(.library(.playlist(id: id, .removed)))
    }
    /// Empties a playlist (it stays, with its name).
    public func clearPlaylist(id: Int64) throws {
        try store.setPlaylistTracks(id: id, trackIDs: [], now: Date())
        events.publish(.library(.playlist(id: id, .cleared)))
    }
    public func movePlaylistEntry(id: Int64, from: Int, to: Int) throws {
        try store.movePlaylistEntry(id: id, from: from, to: to)
        events.publish(.library(.playlist(id: id, .moved(from: from, to: to))))
    }

    // Stations.
    public func stations() throws -> [Station] { try store.stations() }
    public func station(id: Int64) throws -> Station? { try store.station(id: id) }
    public func resolveStation(_ query: String) throws -> Station { try store.resolveStation(query) }
    /// Saves a station; `url` must be http(s) (radio playlists `.pls`/`.m3u`/`.xspf` are resolved when played).
    public func addStation(name: String, url: String, artworkURL: String? = nil) throws -> Station {
        let station = try store.addStation(name: name, url: try Station.streamURL(url), artworkURL: artworkURL)
        events.publish(.library(.station(id: station.id, .added)))
        return station
    }
    public func removeStation(id: Int64) throws {
        try store.removeStation(id: id)
        events.publish(.library(.station(id: id, .removed)))
    }

    // Import failures and artwork checks.
    public func scanFailures() throws -> [ScanFailure] { try store.scanFailures() }
    public func clearScanFailures(paths: [String]? = nil) throws -> Int { try store.clearScanFailures(paths: paths) }
    @discardableResult
    public func resetArtworkChecks() throws -> Int { try store.resetArtworkChecks() }
}

extension CrateRuntime {
    public var collection: MusicCollection { MusicCollection(store: store, events: events) }
}
