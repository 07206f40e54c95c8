public import CrateDomain
public import Foundation
import GRDB

/// The playlists of accounts other than the owner, the sharing of Crate's own playlists, and each account's saved
/// play queue (the Subsonic API's).
extension LibraryStore {
    static let accountPlaylistSelect = """
        SELECT p.id, p.name, p.comment, p.public, p.created_at, p.updated_at, a.name AS owner,
               (SELECT COUNT(*) FROM account_playlist_entry e WHERE e.playlist_id = p.id) AS track_count,
               (SELECT COALESCE(SUM(t.duration), 0) FROM account_playlist_entry e JOIN track t ON t.id = e.track_id
                WHERE e.playlist_id = p.id) AS duration
        FROM account_playlist p JOIN account a ON a.id = p.account_id
        """

    static func accountPlaylist(_ row: Row) -> SharedPlaylist {
        SharedPlaylist(id: row["id"], home: .account, name: row["name"], comment: row["comment"], owner: row["owner"],
                       isPublic: row["public"], trackCount: row["track_count"], duration: row["duration"],
                       createdAt: Date(timeIntervalSince1970: row["created_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }

    /// Whether each of Crate's own playlists is public, and its comment.
    public func playlistSharing() throws -> [Int64: (isPublic: Bool, comment: String?)] {
        try read { db in
            var sharing: [Int64: (isPublic: Bool, comment: String?)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, public, comment FROM playlist") {
                sharing[row["id"]] = (row["public"], row["comment"])
            }
            return sharing
        }
    }

    public func setPlaylistSharing(id: Int64, isPublic: Bool?, comment: String?) throws {
        try write { db in
            if let isPublic { try db.execute(sql: "UPDATE playlist SET public = ? WHERE id = ?", arguments: [isPublic, id]) }
            if let comment { try db.execute(sql: "UPDATE playlist SET comment = ? WHERE id = ?", arguments: [comment.isEmpty ? nil : comment, id]) }
        }
    }

    /// An account's own playlists, and (with `othersPublic`) everyone else's public ones.
    public func accountPlaylists(accountID: Int64, othersPublic: Bool) throws -> [SharedPlaylist] {
        try read { db in
            try Row.fetchAll(db, sql: Self.accountPlaylistSelect + """
                 WHERE p.account_id = ? \(othersPublic ? "OR p.public = 1" : "") ORDER BY p.name COLLATE NOCASE, p.id
                """, arguments: [accountID]).map(Self.accountPlaylist)
        }
    }

    public func accountPlaylist(id: Int64) throws -> (playlist: SharedPlaylist, accountID: Int64)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: Self.accountPlaylistSelect + " WHERE p.id = ?", arguments: [id]) else { return nil }
            let owner = try Int64.fetchOne(db, sql: "SELECT account_id FROM account_playlist WHERE id = ?", arguments: [id]) ?? -1
            return (Self.accountPlaylist(row), owner)
        }
    }

    public func accountPlaylistTracks(id: Int64) throws -> [Track] {
        try read { db in
            try Row.fetchAll(db, sql: Self.trackSelect + """
                 JOIN account_playlist_entry e ON e.track_id = track.id WHERE e.playlist_id = ? ORDER BY e.position
                """, arguments: [id]).map(Self.track)
        }
    }

    public func createAccountPlaylist(accountID: Int64, name: String, trackIDs: [Int64], now: Date = Date()) throws -> Int64 {
        let clean = try Self.playlistName(name)
        return try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM account_playlist WHERE account_id = ? AND name = ? COLLATE NOCASE",
                                   arguments: [accountID, clean]) == nil else {
                throw StoreError.invalid("a playlist named '\(clean)' exists already")
            }
            try db.execute(sql: "INSERT INTO account_playlist (account_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
                           arguments: [accountID, clean, now.timeIntervalSince1970, now.timeIntervalSince1970])
            let id = db.lastInsertedRowID
            try Self.setAccountPlaylistTracks(id, trackIDs, db)
            return id
        }
    }

    /// Edits an account playlist: its name, comment and sharing when given, the entries at `removing` (0-based)
    /// taken out, then `adding` appended; or, with `replacing`, its tracks replaced.
    public func updateAccountPlaylist(id: Int64, name: String? = nil, comment: String? = nil, isPublic: Bool? = nil,
                                      adding: [Int64] = [], removing: [Int] = [], replacing: [Int64]? = nil, now: Date = Date()) throws {
        let clean = try name.map(Self.playlistName)
        try write { db in
            if let clean { try db.execute(sql: "UPDATE account_playlist SET name = ? WHERE id = ?", arguments: [clean, id]) }
            if let comment {
                try db.execute(sql: "UPDATE account_playlist SET comment = ? WHERE id = ?", arguments: [comment.isEmpty ? nil : comment, id])
            }
            if let isPublic { try db.execute(sql: "UPDATE account_playlist SET public = ? WHERE id = ?", arguments: [isPublic, id]) }
            var tracks = try replacing ?? Int64.fetchAll(db, sql: """
                SELECT track_id FROM account_playlist_entry WHERE playlist_id = ? ORDER BY position
                """, arguments: [id])
            if replacing == nil {
                for index in Set(removing).sorted(by: >) where tracks.indices.contains(index) { tracks.remove(at: index) }
                tracks += adding
            }
            try Self.setAccountPlaylistTracks(id, tracks, db)
            try db.execute(sql: "UPDATE account_playlist SET updated_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
    }

    public func deleteAccountPlaylist(id: Int64) throws {
        try write { db in try db.execute(sql: "DELETE FROM account_playlist WHERE id = ?", arguments: [id]) }
    }

    private static func setAccountPlaylistTracks(_ id: Int64, _ trackIDs: [Int64], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM account_playlist_entry WHERE playlist_id = ?", arguments: [id])
        let insert = try db.makeStatement(sql: """
            INSERT INTO account_playlist_entry (playlist_id, position, track_id) SELECT ?, ?, id FROM track WHERE id = ?
            """)
        for (position, track) in trackIDs.enumerated() { try insert.execute(arguments: [id, position, track]) }
    }

    // MARK: Play queues

    public func playQueue(accountID: Int64) throws -> PlayQueue? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM account_play_queue WHERE account_id = ?", arguments: [accountID]) else {
                return nil
            }
            let ids = (try? JSONDecoder().decode([Int64].self, from: Data((row["track_ids"] as String).utf8))) ?? []
            return PlayQueue(trackIDs: ids, current: row["current"], positionMs: row["position_ms"],
                             changedAt: Date(timeIntervalSince1970: row["changed_at"]), changedBy: row["changed_by"])
        }
    }

    /// Saves an account's play queue; an empty one clears it.
    public func savePlayQueue(accountID: Int64, _ queue: PlayQueue) throws {
        let ids = String(decoding: try JSONEncoder().encode(queue.trackIDs), as: UTF8.self)
        try write { db in
            guard !queue.trackIDs.isEmpty else {
                try db.execute(sql: "DELETE FROM account_play_queue WHERE account_id = ?", arguments: [accountID])
                return
            }
            try db.execute(sql: """
                INSERT INTO account_play_queue (account_id, track_ids, current, position_ms, changed_at, changed_by) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET track_ids = excluded.track_ids, current = excluded.current,
                    position_ms = excluded.position_ms, changed_at = excluded.changed_at, changed_by = excluded.changed_by
                """, arguments: [accountID, ids, queue.current, queue.positionMs, queue.changedAt.timeIntervalSince1970, queue.changedBy])
        }
    }
}
