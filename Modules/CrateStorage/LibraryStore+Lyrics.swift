public import CrateDomain
public import Foundation
import GRDB

extension LibraryStore {
    public func lyrics(trackID: Int64) throws -> Lyrics? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT text, provider FROM lyrics WHERE track_id = ?", arguments: [trackID]).map {
                Lyrics(trackID: trackID, text: $0["text"], provider: $0["provider"])
            }
        }
    }

    /// Stores lyrics a provider found (embedded ones are saved by the import itself).
    public func saveLyrics(_ lyrics: Lyrics, at now: Date = Date()) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO lyrics (track_id, text, provider, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(track_id) DO UPDATE SET text = excluded.text, provider = excluded.provider, updated_at = excluded.updated_at
                """, arguments: [lyrics.trackID, lyrics.text, lyrics.provider, now.timeIntervalSince1970])
        }
    }
}
