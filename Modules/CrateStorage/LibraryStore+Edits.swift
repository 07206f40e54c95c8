public import CrateDomain
public import Foundation
import GRDB

/// Metadata overrides, deletion, relinks and the missing-file list.
extension LibraryStore {
    /// Applies `edit` to the track's override row (creating or removing it as needed).
    public func applyEdit(trackID: Int64, _ edit: TrackEdit, at now: Date = Date()) throws {
        for field in edit.clear where !TrackEdit.fields.contains(field) {
            throw StoreError.unknownField(field, known: TrackEdit.fields)
        }
        try write { db in
            let old = try Row.fetchOne(db, sql: "SELECT * FROM track_override WHERE track_id = ?", arguments: [trackID])
            func text(_ name: String, _ new: String?) -> String? {
                edit.clear.contains(name) ? nil : (new.map { $0.trimmingCharacters(in: .whitespaces) } ?? old?[name])
            }
            func number(_ name: String, _ new: Int?) -> Int? { edit.clear.contains(name) ? nil : (new ?? old?[name]) }
            let values: [(String, (any DatabaseValueConvertible)?)] = [
                ("title", text("title", edit.title)), ("artist", text("artist", edit.artist)),
                // Lists sort an edited artist under its new name.
                ("artist_sort_key", text("artist", edit.artist).map { SortName.key($0) }),
                ("album", text("album", edit.album)), ("album_artist", text("album_artist", edit.albumArtist)),
                ("genre", text("genre", edit.genre)), ("date", text("date", edit.date)),
                ("track_number", number("track_number", edit.trackNumber)),
                ("disc_number", number("disc_number", edit.discNumber)),
            ]
            if values.allSatisfy({ $0.1 == nil }) {
                try db.execute(sql: "DELETE FROM track_override WHERE track_id = ?", arguments: [trackID])
                return
            }
            try db.execute(sql: """
                INSERT OR REPLACE INTO track_override (track_id, \(values.map(\.0).joined(separator: ", ")), updated_at)
                VALUES (?, \(Array(repeating: "?", count: values.count).joined(separator: ", ")), ?)
                """, arguments: StatementArguments([trackID as (any DatabaseValueConvertible)?] + values.map(\.1)
                                                   + [now.timeIntervalSince1970]))
        }
    }

    /// Removes the track's library entry (queue places, history, position and overrides go with it)
    /// and any album or artist left empty. Returns the file facts so the caller can delete an app-owned file.
    public func deleteTrack(id: Int64) throws -> LibraryFileRow? {
        try write { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT track.id, track.album_id, track.artist_id, track.source, track.source_id, track.missing_reason,
                       file.path, file.import_mode
                FROM track LEFT JOIN file ON file.track_id = track.id WHERE track.id = ?
                """, arguments: [id])
            guard let row else { throw StoreError.trackNotFound(id) }
            let album: Int64 = row["album_id"], artist: Int64 = row["artist_id"]
            try db.execute(sql: "DELETE FROM track WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM album WHERE id = ? AND NOT EXISTS (SELECT 1 FROM track WHERE album_id = ?)",
                           arguments: [album, album])
            try db.execute(sql: """
                DELETE FROM artist WHERE id = ? AND NOT EXISTS (SELECT 1 FROM track WHERE artist_id = ?)
                    AND NOT EXISTS (SELECT 1 FROM album WHERE artist_id = ?)
                """, arguments: [artist, artist, artist])
            guard let path: String = row["path"] else { return nil }
            return LibraryFileRow(trackID: id, path: path, source: row["source"], sourceID: row["source_id"],
                                  mode: ImportMode(rawValue: row["import_mode"] ?? "") ?? .reference,
                                  missing: (row["missing_reason"] as String?).flatMap(MissingReason.init(rawValue:)))
        }
    }

    /// Points a track at a new file (same track id, queue places and history) and clears its missing flag.
    public func relink(trackID: Int64, to entry: LibraryEntry, at now: Date = Date()) throws {
        var entry = entry
        entry.relinkTrackID = trackID
        try save(ImportBatch(entries: [entry]), at: now)
    }

    /// Tracks flagged missing, with their reason and the path they were expected at.
    public func missingTracks() throws -> [MissingTrack] {
        try read { db in
            try Row.fetchAll(db, sql: Self.trackSelect + " WHERE track.missing_reason IS NOT NULL ORDER BY file.path")
                .map { row in
                    let track = Self.track(row)
                    return MissingTrack(track: track, reason: track.missing ?? .notFound, detail: row["missing_detail"])
                }
        }
    }
}
