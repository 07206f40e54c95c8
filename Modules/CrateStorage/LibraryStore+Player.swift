public import CrateDomain
public import Foundation
import GRDB

/// History, saved player state, per-track positions and missing flags.
extension LibraryStore {
    public static let historyLimit = 100

    public func history(limit: Int = historyLimit) throws -> [HistoryEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT play_history.played_at AS played_at, q.* FROM play_history
                JOIN (\(Self.trackSelect)) AS q ON q.id = play_history.track_id
                ORDER BY play_history.played_at DESC, play_history.id DESC LIMIT ?
                """, arguments: [limit]).map {
                HistoryEntry(track: Self.track($0), playedAt: Date(timeIntervalSince1970: $0["played_at"]))
            }
        }
    }

    /// Saves the snapshot and, when given, the position in that track, in one transaction (the player saves after
    /// every play command: one commit instead of two).
    public func savePlayerSnapshot(_ snapshot: PlayerSnapshot, trackPosition: (trackID: Int64, seconds: Double)? = nil,
                                   at date: Date = Date()) throws {
        let modes = String(decoding: try JSONEncoder().encode(snapshot.modes), as: UTF8.self)
        try write { db in
            try db.cachedStatement(sql: """
                INSERT INTO player_state (id, current_entry, elapsed, modes) VALUES (1, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET current_entry = excluded.current_entry, elapsed = excluded.elapsed,
                    modes = excluded.modes
                """).execute(arguments: [snapshot.currentEntryID, snapshot.elapsed, modes])
            if let trackPosition { try Self.saveTrackPosition(trackID: trackPosition.trackID, seconds: trackPosition.seconds, at: date, db) }
        }
    }

    /// The saved snapshot; modes that do not parse fall back to defaults rather than failing start-up.
    public func playerSnapshot() throws -> PlayerSnapshot? {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM player_state WHERE id = 1")) else { return nil }
            let json: String = row["modes"]
            let modes = (try? JSONDecoder().decode(PlayerModes.self, from: Data(json.utf8))) ?? PlayerModes()
            return PlayerSnapshot(currentEntryID: row["current_entry"], elapsed: row["elapsed"], modes: modes)
        }
    }

    public func saveTrackPosition(trackID: Int64, seconds: Double, at date: Date = Date()) throws {
        try write { db in try Self.saveTrackPosition(trackID: trackID, seconds: seconds, at: date, db) }
    }

    private static func saveTrackPosition(trackID: Int64, seconds: Double, at date: Date, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO track_position (track_id, seconds, updated_at) VALUES (?, ?, ?)
            ON CONFLICT(track_id) DO UPDATE SET seconds = excluded.seconds, updated_at = excluded.updated_at
            """).execute(arguments: [trackID, seconds, date.timeIntervalSince1970])
    }

    public func trackPosition(trackID: Int64) throws -> Double? {
        try read { db in try Double.fetchOne(db.cachedStatement(sql: "SELECT seconds FROM track_position WHERE track_id = ?"), arguments: [trackID]) }
    }

    /// Flags a track as missing (nil clears the flag).
    public func setMissing(trackID: Int64, reason: MissingReason?, detail: String? = nil) throws {
        try write { db in
            try db.execute(sql: "UPDATE track SET missing_reason = ?, missing_detail = ? WHERE id = ?",
                           arguments: [reason?.rawValue, detail, trackID])
        }
    }

    public func missingReason(trackID: Int64) throws -> MissingReason? {
        try read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT missing_reason FROM track WHERE id = ?"), arguments: [trackID])
                .flatMap(MissingReason.init(rawValue:))
        }
    }
}
