public import CrateDomain
import Foundation
import GRDB

/// The play queue. Entries keep sparse REAL positions (a gap of 1024 between neighbours), so an insert
/// or a move writes one row; only when a gap is used up are positions renumbered, in one statement.
extension LibraryStore {
    static let gap = 1024.0

    /// What the player's status reads from the library (`playerView(entryID:)`).
    public struct PlayerView: Sendable {
        public var entry: QueueEntry?
        public var queueLength: Int
        /// The catalog album (`applemusic:ID`) when the entry is one of its previews.
        public var previewAlbum: String?
    }

    public func queueCount() throws -> Int {
        try read { db in try Self.queueCount(db) }
    }

    private static func queueCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM queue_entry")) ?? 0
    }

    /// What the player's status reads from the library, in one read: the entry `entryID` as it is now, the queue's
    /// length, and the catalog album when the entry is a preview. A status is asked for after every command and by
    /// polling clients; each read of its own costs about as much as its query (Benchmarks/README.md, player.sh).
    public func playerView(entryID: Int64?) throws -> PlayerView {
        try read { db in
            let entry = try entryID.flatMap { try Self.entry(id: $0, db) }
            return PlayerView(entry: entry, queueLength: try Self.queueCount(db),
                              previewAlbum: try entry.flatMap { try Self.previewCatalogAlbum(albumID: $0.track.albumID, db) })
        }
    }

    /// Entries `offset ..< offset+limit` (0-based), in queue order.
    public func queue(offset: Int = 0, limit: Int = 1000) throws -> [QueueEntry] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT queue_entry.id AS entry_id, queue_entry.album_lock, queue_entry.playlist_id AS entry_playlist, q.* FROM queue_entry
                JOIN (\(Self.trackSelect)) AS q ON q.id = queue_entry.track_id
                ORDER BY queue_entry.position LIMIT ? OFFSET ?
                """), arguments: [limit, offset]).enumerated().map { i, row in
                QueueEntry(id: row["entry_id"], index: offset + i + 1, track: Self.track(row), albumLock: row["album_lock"],
                                  playlistID: row["entry_playlist"])
            }
        }
    }

    public func queueEntry(id: Int64) throws -> QueueEntry? {
        try read { db in try Self.entry(id: id, db) }
    }

    /// The entry at 1-based `index`.
    public func queueEntry(at index: Int) throws -> QueueEntry? {
        guard index >= 1 else { return nil }
        return try queue(offset: index - 1, limit: 1).first
    }

    /// The entry after (`direction` 1) or before (-1) `id` in queue order; nil at either end.
    public func queueNeighbour(of id: Int64, direction: Int) throws -> QueueEntry? {
        try read { db in
            let op = direction > 0 ? ">" : "<", order = direction > 0 ? "ASC" : "DESC"
            guard let next = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT id FROM queue_entry WHERE position \(op) (SELECT position FROM queue_entry WHERE id = ?)
                ORDER BY position \(order) LIMIT 1
                """), arguments: [id]) else { return nil }
            return try Self.entry(id: next, db)
        }
    }

    /// Replaces the whole queue with `trackIDs`; returns the new entries' ids in order.
    @discardableResult
    public func replaceQueue(with trackIDs: [Int64], albumLock: Bool = false, playlistID: Int64? = nil) throws -> [Int64] {
        try write { db in
            try db.cachedStatement(sql: "DELETE FROM queue_entry").execute()
            return try Self.insert(trackIDs, from: 0, step: Self.gap, albumLock: albumLock, playlistID: playlistID, db)
        }
    }

    /// Inserts `trackIDs` so the first lands at 1-based `index` (nil or past the end: append).
    @discardableResult
    public func insertIntoQueue(_ trackIDs: [Int64], at index: Int? = nil, albumLock: Bool = false) throws -> [Int64] {
        guard !trackIDs.isEmpty else { return [] }
        return try write { db in
            let (before, after) = try Self.bounds(at: index, db)
            guard let after else {
                return try Self.insert(trackIDs, from: before ?? 0, step: Self.gap, albumLock: albumLock, db)
            }
            var low = before ?? (after - Self.gap * Double(trackIDs.count + 1))
            var high = after
            if (high - low) / Double(trackIDs.count + 1) < 1e-6 {
                try Self.renumber(db)
                let (b, a) = try Self.bounds(at: index, db)
                high = a ?? after
                low = b ?? (high - Self.gap * Double(trackIDs.count + 1))
            }
            return try Self.insert(trackIDs, from: low, step: (high - low) / Double(trackIDs.count + 1),
                                   albumLock: albumLock, db)
        }
    }

    /// Moves entry `id` so it ends up at 1-based `index`.
    public func moveQueueEntry(_ id: Int64, to index: Int) throws {
        try write { db in
            guard try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM queue_entry WHERE id = ?"), arguments: [id]) != nil else {
                throw StoreError.query("no queue entry \(id)")
            }
            // Positions are computed as if the entry were already taken out.
            let current = try Self.index(of: id, db)
            let target = index > current ? index + 1 : index
            var (before, after) = try Self.bounds(at: target, db)
            if let a = after, let b = before, (a - b) < 1e-6 {
                try Self.renumber(db)
                (before, after) = try Self.bounds(at: target, db)
            }
            let position = switch (before, after) {
            case let (b?, a?): (b + a) / 2
            case let (b?, nil): b + Self.gap
            case let (nil, a?): a - Self.gap
            case (nil, nil): 0.0
            }
            try db.execute(sql: "UPDATE queue_entry SET position = ? WHERE id = ?", arguments: [position, id])
        }
    }

    /// Puts entries `ids` in the given order, in the places they held together (the rest of the queue stays put):
    /// one transaction, however many entries move.
    public func reorderQueue(_ ids: [Int64]) throws {
        try write { db in
            var places: [Double] = []
            for id in ids {
                guard let place = try Double.fetchOne(db, sql: "SELECT position FROM queue_entry WHERE id = ?", arguments: [id]) else {
                    throw StoreError.query("no queue entry \(id)")
                }
                places.append(place)
            }
            for (id, place) in zip(ids, places.sorted()) {
                try db.execute(sql: "UPDATE queue_entry SET position = ? WHERE id = ?", arguments: [place, id])
            }
        }
    }

    public func removeQueueEntry(_ id: Int64) throws {
        try removeQueueEntries([id])
    }

    /// Removes the entries in one transaction (a range deleted at once is one change, never half done).
    public func removeQueueEntries(_ ids: [Int64]) throws {
        try write { db in
            for id in ids { try db.execute(sql: "DELETE FROM queue_entry WHERE id = ?", arguments: [id]) }
        }
    }

    public func clearQueue() throws {
        try write { db in try db.execute(sql: "DELETE FROM queue_entry") }
    }

    /// Puts `trackID` in place of entry `id` (playing from history replaces only the current track).
    public func replaceQueueEntryTrack(_ id: Int64, with trackID: Int64) throws {
        try write { db in
            try db.execute(sql: "UPDATE queue_entry SET track_id = ?, album_lock = 0, playlist_id = NULL WHERE id = ?", arguments: [trackID, id])
        }
    }

    // MARK: - Internals

    /// The player asks for its entry at every status (the web page and `crate status` poll it): the statements
    /// below are compiled once per connection (`cachedStatement`); compiling the track join took most of a status.
    static func entry(id: Int64, _ db: Database) throws -> QueueEntry? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT queue_entry.id AS entry_id, queue_entry.album_lock, queue_entry.playlist_id AS entry_playlist, q.* FROM queue_entry
            JOIN (\(trackSelect)) AS q ON q.id = queue_entry.track_id WHERE queue_entry.id = ?
            """), arguments: [id]) else { return nil }
        return QueueEntry(id: row["entry_id"], index: try index(of: id, db), track: track(row), albumLock: row["album_lock"],
                                  playlistID: row["entry_playlist"])
    }

    /// 1-based index of entry `id`.
    static func index(of id: Int64, _ db: Database) throws -> Int {
        (try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM queue_entry WHERE position < (SELECT position FROM queue_entry WHERE id = ?)
            """), arguments: [id]) ?? 0) + 1
    }

    /// Positions of the entries now at `index - 1` and `index` (1-based); nil where there is none.
    static func bounds(at index: Int?, _ db: Database) throws -> (Double?, Double?) {
        let last = try Double.fetchOne(db.cachedStatement(sql: "SELECT MAX(position) FROM queue_entry"))
        guard let index, index >= 1 else { return (last, nil) }
        let after = try Double.fetchOne(db.cachedStatement(sql: "SELECT position FROM queue_entry ORDER BY position LIMIT 1 OFFSET ?"),
                                        arguments: [index - 1])
        guard after != nil else { return (last, nil) }
        let before = index >= 2
            ? try Double.fetchOne(db.cachedStatement(sql: "SELECT position FROM queue_entry ORDER BY position LIMIT 1 OFFSET ?"), arguments: [index - 2])
            : nil
        return (before, after)
    }

    static func insert(_ trackIDs: [Int64], from start: Double, step: Double, albumLock: Bool, playlistID: Int64? = nil,
                       _ db: Database) throws -> [Int64] {
        let statement = try db.cachedStatement(sql: "INSERT INTO queue_entry (track_id, position, album_lock, playlist_id) VALUES (?, ?, ?, ?)")
        return try trackIDs.enumerated().map { i, track in
            try statement.execute(arguments: [track, start + step * Double(i + 1), albumLock, playlistID])
            return db.lastInsertedRowID
        }
    }

    /// Spreads positions out again (1024, 2048, ...) in queue order.
    static func renumber(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE queue_entry SET position = (
                SELECT r.n * \(gap) FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY position) AS n FROM queue_entry) AS r
                WHERE r.id = queue_entry.id)
            """)
    }
}
