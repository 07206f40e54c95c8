public import CrateDomain
public import Foundation
import GRDB

/// Favorites of every kind and album dislikes. Both live in `opinion`, one row per item, so liking an
/// album replaces its dislike and disliking replaces its like.
extension LibraryStore {
    /// Sets (or with nil clears) the opinion of an item. Only albums can be disliked.
    public func setOpinion(_ kind: FavoriteKind, id: Int64, _ opinion: Opinion?, at now: Date = Date()) throws {
        if opinion == .dislike, kind != .album { throw StoreError.invalid("only albums can be disliked") }
        try write { db in
            let table = kind.rawValue
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE id = ?", arguments: [id]) != nil else {
                if kind == .track { throw StoreError.trackNotFound(id) }
                throw StoreError.notFound(kind: table, query: String(id))
            }
            if let opinion {
                try db.execute(sql: """
                    INSERT INTO opinion (kind, item_id, value, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(kind, item_id) DO UPDATE SET value = excluded.value, created_at = excluded.created_at
                    WHERE opinion.value <> excluded.value
                    """, arguments: [kind.rawValue, id, opinion.rawValue, now.timeIntervalSince1970])
            } else {
                try db.execute(sql: "DELETE FROM opinion WHERE kind = ? AND item_id = ?", arguments: [kind.rawValue, id])
            }
        }
    }

    public func opinion(_ kind: FavoriteKind, id: Int64) throws -> Opinion? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM opinion WHERE kind = ? AND item_id = ?", arguments: [kind.rawValue, id])
                .flatMap(Opinion.init(rawValue:))
        }
    }

    /// Favorite tracks, newest favorite first: the "Favorites" pseudo-playlist.
    public func favoriteTracks() throws -> [Track] {
        try read { db in
            try Row.fetchAll(db, sql: Self.trackSelect + """
                 JOIN opinion ON opinion.kind = 'track' AND opinion.item_id = track.id AND opinion.value = 'favorite'
                ORDER BY opinion.created_at DESC, track.id
                """).map(Self.track)
        }
    }

    /// Everything marked, each kind newest first; liked and disliked catalog albums follow the library's.
    public func favorites() throws -> FavoritesList {
        func ids(_ kind: FavoriteKind, _ value: Opinion, _ db: Database) throws -> String {
            "SELECT item_id FROM opinion WHERE kind = '\(kind.rawValue)' AND value = '\(value.rawValue)'"
        }
        let tracks = try favoriteTracks()
        let catalogLiked = try catalogAlbums(.favorite), catalogDisliked = try catalogAlbums(.dislike)
        return try read { db in
            let order = { (kind: String, column: String) in
                " ORDER BY (SELECT created_at FROM opinion WHERE kind = '\(kind)' AND item_id = \(column)) DESC"
            }
            return FavoritesList(
                tracks: tracks,
                albums: try Row.fetchAll(db, sql: Self.albumSelect + " WHERE album.id IN (\(try ids(.album, .favorite, db))) GROUP BY album.id"
                                         + order("album", "album.id")).map(Self.album) + catalogLiked,
                artists: try Row.fetchAll(db, sql: Self.artistSelect + " WHERE artist.id IN (\(try ids(.artist, .favorite, db)))"
                                          + order("artist", "artist.id")).map(Self.artist),
                playlists: try Row.fetchAll(db, sql: Self.playlistSelect + " WHERE playlist.id IN (\(try ids(.playlist, .favorite, db)))"
                                            + order("playlist", "playlist.id")).map(Self.playlist),
                dislikedAlbums: try Row.fetchAll(db, sql: Self.albumSelect + " WHERE album.id IN (\(try ids(.album, .dislike, db))) GROUP BY album.id"
                                                 + order("album", "album.id")).map(Self.album) + catalogDisliked)
        }
    }
}
