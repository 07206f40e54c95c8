public import CrateDomain
import Foundation
import GRDB

/// Sorted lists: albums, tracks, album artists and their albums. Artist sorting uses `artist.sort_key`
/// (sort tags, else the name without a leading article); disliked albums are left out unless asked for.
extension LibraryStore {
    static let notDisliked = "album.id NOT IN (SELECT item_id FROM opinion WHERE kind = 'album' AND value = 'dislike')"
    /// Stream tracks share one hidden album (see `Station`), and a catalog album's previews have one of their own (see
    /// `CatalogPreview`); lists of albums, artists and tracks leave them out.
    static let notStreams = "(album.identity <> '\(Station.albumIdentity)' AND album.identity NOT GLOB '\(CatalogPreview.identityPrefix)*')"
    /// An artist (`artist` row) known only from hidden albums: the album artist of some and of nothing else, and the
    /// artist of no track of the library. Counts and search leave such artists out (lists ask for albums anyway).
    static let hiddenOnlyArtist = """
        (EXISTS (SELECT 1 FROM album WHERE album.artist_id = artist.id AND NOT \(notStreams))
         AND NOT EXISTS (SELECT 1 FROM album WHERE album.artist_id = artist.id AND \(notStreams))
         AND NOT EXISTS (SELECT 1 FROM track JOIN album ON album.id = track.album_id WHERE track.artist_id = artist.id AND \(notStreams)))
        """
    static let favoriteAlbum = "EXISTS (SELECT 1 FROM opinion WHERE kind = 'album' AND item_id = album.id AND value = 'favorite')"

    /// ORDER BY terms for albums (the query must join `artist` on the album artist).
    static func albumOrder(_ key: AlbumSort, _ order: SortDirection) -> String {
        let dir = order == .ascending ? "ASC" : "DESC"
        switch key {
        case .title: return "album.title COLLATE NOCASE \(dir), artist.sort_key, album.id"
        case .added: return "album.added_at \(dir), album.id \(dir)"
        case .artist: return "artist.sort_key \(dir), album.year, album.title COLLATE NOCASE, album.id"
        case .year: return "album.year IS NULL, album.year \(dir), artist.sort_key, album.title COLLATE NOCASE, album.id"
        }
    }

    /// Albums, sorted (default: by album artist), favorites first when asked.
    public func albums(sort: ListSort<AlbumSort> = ListSort(.artist), includeDisliked: Bool = false,
                       artistID: Int64? = nil) throws -> [Album] {
        var conditions: [String] = [Self.notStreams]
        var arguments: [any DatabaseValueConvertible] = []
        if !includeDisliked { conditions.append(Self.notDisliked) }
        if let artistID {
            conditions.append("album.artist_id = ?")
            arguments.append(artistID)
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let first = sort.favoritesFirst ? "\(Self.favoriteAlbum) DESC, " : ""
        return try read { db in
            try Row.fetchAll(db, sql: Self.albumSelect + filter + " GROUP BY album.id ORDER BY " + first
                             + Self.albumOrder(sort.key, sort.order), arguments: StatementArguments(arguments)).map(Self.album)
        }
    }

    static func trackOrder(_ key: TrackSort, _ order: SortDirection) -> String {
        let dir = order == .ascending ? "ASC" : "DESC"
        switch key {
        case .title: return "COALESCE(o.title, track.title) COLLATE NOCASE \(dir), track.id"
        case .added: return "track.added_at \(dir), track.id \(dir)"
        case .artist:
            return """
                COALESCE(o.artist_sort_key, (SELECT sort_key FROM artist WHERE artist.id = track.artist_id)) \(dir),
                album_artist.sort_key, album.year, album.title COLLATE NOCASE, COALESCE(track.disc_number, 1),
                COALESCE(o.track_number, track.track_number), track.id
                """
        }
    }

    /// Tracks of the whole library, sorted; `limit`/`offset` page through them.
    public func tracks(sort: ListSort<TrackSort>, offset: Int = 0, limit: Int = 500) throws -> [Track] {
        let first = sort.favoritesFirst ? "favorite DESC, " : ""
        return try read { db in
            try Row.fetchAll(db, sql: Self.trackSelect + " WHERE " + Self.notStreams + " ORDER BY " + first + Self.trackOrder(sort.key, sort.order)
                             + " LIMIT ? OFFSET ?", arguments: [max(0, limit), max(0, offset)]).map(Self.track)
        }
    }

    static let artistSelect = """
        SELECT artist.id, artist.name, artist.sort_key,
               (SELECT COUNT(*) FROM album WHERE album.artist_id = artist.id AND \(notStreams)) AS album_count,
               (SELECT COUNT(*) FROM track JOIN album ON album.id = track.album_id
                WHERE track.artist_id = artist.id AND \(notStreams)) AS track_count,
               EXISTS (SELECT 1 FROM opinion WHERE kind = 'artist' AND item_id = artist.id) AS favorite
        FROM artist
        """

    static func artist(_ row: Row) -> Artist {
        Artist(id: row["id"], name: row["name"], sortKey: row["sort_key"], albumCount: row["album_count"],
               trackCount: row["track_count"], favorite: row["favorite"])
    }

    /// Album artists (artists with at least one album), by sort key; favorites first when asked.
    public func albumArtists(order: SortDirection = .ascending, favoritesFirst: Bool = false) throws -> [Artist] {
        let dir = order == .ascending ? "ASC" : "DESC"
        return try read { db in
            try Row.fetchAll(db, sql: Self.artistSelect + """
                 WHERE EXISTS (SELECT 1 FROM album WHERE album.artist_id = artist.id AND \(Self.notStreams))
                ORDER BY \(favoritesFirst ? "favorite DESC, " : "")artist.sort_key \(dir), artist.name
                """).map(Self.artist)
        }
    }

    public func artist(id: Int64) throws -> Artist? {
        try read { db in try Row.fetchOne(db, sql: Self.artistSelect + " WHERE artist.id = ?", arguments: [id]).map(Self.artist) }
    }

    /// An artist by id or name (exact, case-insensitive), else by words of the name when one matches.
    public func resolveArtist(_ query: String) throws -> Artist {
        let q = query.trimmingCharacters(in: .whitespaces)
        if let id = Int64(q), let artist = try artist(id: id) { return artist }
        let found = try read { db in
            try Row.fetchAll(db, sql: Self.artistSelect + " WHERE artist.name = ? COLLATE NOCASE", arguments: [q]).map(Self.artist)
        }
        if let only = found.first, found.count == 1 { return only }
        let words = q.lowercased().split(separator: " ").map(String.init)
        let matches = try albumArtists().filter { a in words.allSatisfy { a.name.lowercased().contains($0) } }
        if matches.count == 1, let only = matches.first { return only }
        if matches.isEmpty { throw StoreError.notFound(kind: "artist", query: q) }
        throw StoreError.ambiguous(kind: "artist", query: q, candidates: matches.map { "\($0.id)  \($0.name)" })
    }
}
