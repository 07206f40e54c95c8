import CrateCore
import CrateDomain
import Foundation

/// The library as MPD clients see it: every track under its URI, in URI order. Built from the library on first
/// use and again after a `library` event (an import, a rescan, an edit), so `find`, `list` and `lsinfo` run in
/// memory, as MPD's own database does.
final class MPDDatabase: @unchecked Sendable {
    /// A class, so that filtering and listing 10,000 songs copies one reference each, not every string of a Track.
    final class Song: Sendable {
        let uri: String
        let track: Track
        /// The text tags in lower case, folded once here so that `search` does not fold every song per query.
        let folded: Folded

        init(uri: String, track: Track) {
            self.uri = uri
            self.track = track
            folded = Folded(artist: track.artist.lowercased(), albumArtist: track.albumArtist.lowercased(), album: track.album.lowercased(),
                            title: track.title.lowercased(), genre: track.genre?.lowercased(), uri: uri.lowercased())
        }
    }

    struct Folded: Sendable {
        let artist, albumArtist, album, title: String
        let genre: String?
        let uri: String
    }

    struct Snapshot: Sendable {
        /// Sorted by URI: a folder's songs are one run of the array.
        let songs: [Song]
        let byURI: [String: Int]
    }

    private let collection: MusicCollection
    private let library: LibraryService
    private let lock = NSLock()
    private var current: Snapshot?
    /// Counts invalidations: a snapshot read while the library changed is used once but not kept.
    private var generation = 0

    init(collection: MusicCollection, library: LibraryService) {
        self.collection = collection
        self.library = library
    }

    /// The library changed: the next request reads it again.
    func invalidate() {
        lock.withLock {
            current = nil
            generation += 1
        }
    }

    func snapshot() throws -> Snapshot {
        let (cached, started) = lock.withLock { (current, generation) }
        if let cached { return cached }
        let folders = try library.musicFolders()
        var tracks: [Track] = []
        let page = 5000
        while true {
            let more = try collection.tracks(sort: ListSort(.added), offset: tracks.count, limit: page)
            tracks += more
            if more.count < page { break }
        }
        let songs = tracks.map { Song(uri: MPDSongText.uri($0, folders: folders), track: $0) }.sorted { $0.uri < $1.uri }
        let built = Snapshot(songs: songs, byURI: Dictionary(songs.enumerated().map { ($1.uri, $0) }) { first, _ in first })
        lock.withLock { if generation == started { current = built } }
        return built
    }
}

extension MPDDatabase.Snapshot {
    /// The songs at `uri` (a file) or under it (a folder; "" is the whole library).
    func songs(under uri: String) -> ArraySlice<MPDDatabase.Song> {
        if uri.isEmpty { return songs[...] }
        if let i = byURI[uri] { return songs[i...i] }
        let prefix = uri.hasSuffix("/") ? uri : uri + "/"
        let start = songs.partitioningIndex { $0.uri >= prefix }
        var end = start
        while end < songs.endIndex, songs[end].uri.hasPrefix(prefix) { end += 1 }
        return songs[start..<end]
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for a predicate that is false then true along the array.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
