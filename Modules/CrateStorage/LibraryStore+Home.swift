public import CrateDomain
public import Foundation
import GRDB

/// Plays, recents and the home screen.
extension LibraryStore {
    /// Above this many plays in the window, top artists fall back to recent artists rather than
    /// grouping them all on every home request.
    public static let topArtistScanLimit = 200_000

    /// Counts a finished play: the track's and album's play count and last-played time, the play log,
    /// history (newest first, 100 kept) and, unless it played from a playlist, its album as a recent item
    /// (a saved station's track makes the station recent instead: the streams album is not shown, nor a preview album).
    public func recordPlay(trackID: Int64, fromPlaylist playlistID: Int64? = nil, at date: Date = Date()) throws {
        let time = date.timeIntervalSince1970
        try write { db in
            try db.execute(sql: "INSERT INTO play_history (track_id, played_at) VALUES (?, ?)", arguments: [trackID, time])
            try db.execute(sql: """
                DELETE FROM play_history WHERE id NOT IN (SELECT id FROM play_history ORDER BY played_at DESC, id DESC LIMIT ?)
                """, arguments: [Self.historyLimit])
            try db.execute(sql: "INSERT INTO play_log (track_id, played_at) VALUES (?, ?)", arguments: [trackID, time])
            try db.execute(sql: "UPDATE track SET play_count = play_count + 1, last_played_at = ? WHERE id = ?",
                           arguments: [time, trackID])
            guard let album = try Int64.fetchOne(db, sql: "SELECT album_id FROM track WHERE id = ?", arguments: [trackID]) else { return }
            try db.execute(sql: "UPDATE album SET play_count = play_count + 1, last_played_at = ? WHERE id = ?", arguments: [time, album])
            if let playlistID, try Int.fetchOne(db, sql: "SELECT 1 FROM playlist WHERE id = ?", arguments: [playlistID]) != nil {
                try Self.touchRecent(.playlist, playlistID, time, db)
            } else if let station = try Int64.fetchOne(db, sql: "SELECT id FROM station WHERE track_id = ?", arguments: [trackID]) {
                try Self.touchRecent(.station, station, time, db)
            } else if try Bool.fetchOne(db, sql: "SELECT \(Self.notStreams) FROM album WHERE id = ?", arguments: [album]) == true {
                try Self.touchRecent(.album, album, time, db)
            }
        }
    }

    /// Marks an album as played from now (play-album), before any of its tracks finished.
    public func markAlbumPlayed(id: Int64, at now: Date = Date()) throws {
        try write { db in try Self.touchRecent(.album, id, now.timeIntervalSince1970, db) }
    }

    /// Puts an item first among the recent items and keeps the newest 50. An id that is not (or no
    /// longer) in the library is ignored rather than taking a place.
    static func touchRecent(_ kind: RecentItem.Kind, _ id: Int64, _ time: Double, _ db: Database) throws {
        // Prepared once per connection: every play of an album runs these (one statement per kind of item).
        guard try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM \(kind.rawValue) WHERE id = ?"), arguments: [id]) != nil else { return }
        try db.cachedStatement(sql: """
            INSERT INTO recent_item (kind, item_id, played_at) VALUES (?, ?, ?)
            ON CONFLICT(kind, item_id) DO UPDATE SET played_at = excluded.played_at
            """).execute(arguments: [kind.rawValue, id, time])
        try db.cachedStatement(sql: """
            DELETE FROM recent_item WHERE (kind, item_id) NOT IN
                (SELECT kind, item_id FROM recent_item ORDER BY played_at DESC, kind, item_id LIMIT ?)
            """).execute(arguments: [Home.recentItemLimit])
    }

    /// Recent albums, playlists and stations together, newest first; disliked albums are left out.
    public func recentItems(limit: Int = Home.recentItemLimit) throws -> [RecentItem] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT kind, item_id, played_at FROM recent_item
                WHERE NOT (kind = 'album' AND item_id IN (SELECT item_id FROM opinion WHERE kind = 'album' AND value = 'dislike'))
                ORDER BY played_at DESC, kind, item_id LIMIT ?
                """, arguments: [limit]).compactMap { row in
                let id: Int64 = row["item_id"], at = Date(timeIntervalSince1970: row["played_at"])
                switch RecentItem.Kind(rawValue: row["kind"]) {
                case .album:
                    return try Row.fetchOne(db, sql: Self.albumSelect + " WHERE album.id = ? GROUP BY album.id", arguments: [id])
                        .map { RecentItem(kind: .album, playedAt: at, album: Self.album($0)) }
                case .playlist:
                    return try Row.fetchOne(db, sql: Self.playlistSelect + " WHERE playlist.id = ?", arguments: [id])
                        .map { RecentItem(kind: .playlist, playedAt: at, playlist: Self.playlist($0)) }
                case .station:
                    return try Row.fetchOne(db, sql: Self.stationSelect + " WHERE station.id = ?", arguments: [id])
                        .map { RecentItem(kind: .station, playedAt: at, station: Self.station($0)) }
                case nil:
                    return nil
                }
            }
        }
    }

    /// The top artists by plays in the last `days` days; when there were none (or too many to group
    /// cheaply), the artists of the most recent plays, newest first. Returns the list and its basis.
    public func topArtists(days: Int = Home.topArtistDays, limit: Int = Home.topArtistLimit,
                           now: Date = Date()) throws -> ([TopArtist], basis: String) {
        let since = now.timeIntervalSince1970 - Double(days) * 86_400
        return try read { db in
            let plays = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM play_log WHERE played_at >= ? LIMIT ?)",
                                         arguments: [since, Self.topArtistScanLimit + 1]) ?? 0
            if plays > 0 && plays <= Self.topArtistScanLimit {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT track.artist_id AS artist_id, COUNT(*) AS plays, MAX(play_log.played_at) AS last
                    FROM play_log JOIN track ON track.id = play_log.track_id JOIN album ON album.id = track.album_id
                    WHERE play_log.played_at >= ? AND \(Self.notStreams)
                    GROUP BY track.artist_id ORDER BY plays DESC, last DESC LIMIT ?
                    """, arguments: [since, limit])
                return (try Self.topArtists(rows, db), "top")
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT track.artist_id AS artist_id, 0 AS plays, MAX(play_log.played_at) AS last
                FROM play_log JOIN track ON track.id = play_log.track_id JOIN album ON album.id = track.album_id
                WHERE play_log.id IN (SELECT id FROM play_log ORDER BY played_at DESC LIMIT 1000) AND \(Self.notStreams)
                GROUP BY track.artist_id ORDER BY last DESC LIMIT ?
                """, arguments: [limit])
            return (try Self.topArtists(rows, db), "recent")
        }
    }

    private static func topArtists(_ rows: [Row], _ db: Database) throws -> [TopArtist] {
        try rows.compactMap { row in
            try Row.fetchOne(db, sql: artistSelect + " WHERE artist.id = ?", arguments: [row["artist_id"] as Int64]).map {
                TopArtist(artist: artist($0), plays: row["plays"],
                          lastPlayedAt: (row["last"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func home(now: Date = Date()) throws -> Home {
        let (top, basis) = try topArtists(now: now)
        return Home(recentItems: try recentItems(), recentPlays: try history(limit: 20), topArtists: top, topArtistsBasis: basis)
    }
}
