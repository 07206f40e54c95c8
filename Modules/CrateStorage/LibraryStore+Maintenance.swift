public import CrateDomain
public import Foundation
import GRDB

/// Diagnostics counts, database repair and the artwork bookkeeping maintenance needs.
extension LibraryStore {
    public func diagnostics() throws -> LibraryDiagnostics {
        try read { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            let missing = try Self.missingCounts(db)
            var modes: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT import_mode, COUNT(*) AS n FROM file GROUP BY import_mode") {
                modes[row["import_mode"]] = row["n"]
            }
            return LibraryDiagnostics(
                tracks: try count("SELECT COUNT(*) FROM track"), albums: try count("SELECT COUNT(*) FROM album"),
                artists: try count("SELECT COUNT(*) FROM artist"), queueEntries: try count("SELECT COUNT(*) FROM queue_entry"),
                historyEntries: try count("SELECT COUNT(*) FROM play_history"),
                playbackPositions: try count("SELECT COUNT(*) FROM track_position"),
                playerStateSaved: try count("SELECT COUNT(*) FROM player_state") > 0,
                missing: missing, importRecords: try count("SELECT COUNT(*) FROM import_record"),
                importFailures: try count("SELECT COUNT(*) FROM scan_failure"),
                filesByMode: modes, artwork: try count("SELECT COUNT(*) FROM artwork"),
                tracksWithoutArtwork: try count("SELECT COUNT(*) FROM track WHERE artwork_hash IS NULL"),
                overrides: try count("SELECT COUNT(*) FROM track_override"),
                libraryRoots: try count("SELECT COUNT(*) FROM library_root"),
                playlists: try count("SELECT COUNT(*) FROM playlist"),
                playlistEntries: try count("SELECT COUNT(*) FROM playlist_entry"),
                favorites: try count("SELECT COUNT(*) FROM opinion WHERE value = 'favorite'"),
                dislikes: try count("SELECT COUNT(*) FROM opinion WHERE value = 'dislike'"),
                lyrics: try count("SELECT COUNT(*) FROM lyrics"),
                recentItems: try count("SELECT COUNT(*) FROM recent_item"),
                plays: try count("SELECT COUNT(*) FROM play_log"))
        }
    }

    /// Tracks flagged missing, by reason (every reason present, 0 when none): what a rescan's missing check reports,
    /// without the rest of the diagnostics' counts.
    public func missingCounts() throws -> [String: Int] {
        try read { db in try Self.missingCounts(db) }
    }

    private static func missingCounts(_ db: Database) throws -> [String: Int] {
        var missing: [String: Int] = Dictionary(uniqueKeysWithValues: MissingReason.allCases.map { ($0.rawValue, 0) })
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT missing_reason, COUNT(*) FROM track WHERE missing_reason IS NOT NULL GROUP BY missing_reason
            """))
        while let row = try rows.next() { missing[row[0]] = row[1] }
        return missing
    }

    /// Removes rows that point at nothing (left by crashes, older versions or edits made with foreign keys off)
    /// and returns how many went, per kind. Artwork rows no track or album uses are returned for the caller
    /// to delete their files.
    public func repair() throws -> (removed: [String: Int], unusedArtwork: [ArtworkRecord]) {
        try write { db in
            var removed: [String: Int] = [:]
            func run(_ name: String, _ sql: String) throws {
                try db.execute(sql: sql)
                if db.changesCount > 0 { removed[name, default: 0] += db.changesCount }
            }
            try run("queue entries", "DELETE FROM queue_entry WHERE track_id NOT IN (SELECT id FROM track)")
            try run("history entries", "DELETE FROM play_history WHERE track_id NOT IN (SELECT id FROM track)")
            try run("playback positions", "DELETE FROM track_position WHERE track_id NOT IN (SELECT id FROM track)")
            try run("overrides", "DELETE FROM track_override WHERE track_id NOT IN (SELECT id FROM track)")
            try run("file rows", "DELETE FROM file WHERE track_id NOT IN (SELECT id FROM track)")
            try run("tracks without an album", "DELETE FROM track WHERE album_id NOT IN (SELECT id FROM album)")
            try run("albums without tracks", "DELETE FROM album WHERE id NOT IN (SELECT album_id FROM track)")
            try run("artists without albums or tracks", """
                DELETE FROM artist WHERE id NOT IN (SELECT artist_id FROM track) AND id NOT IN (SELECT artist_id FROM album)
                """)
            try run("import records of deleted tracks",
                    "UPDATE import_record SET track_id = NULL WHERE track_id IS NOT NULL AND track_id NOT IN (SELECT id FROM track)")
            try run("saved current entry", """
                UPDATE player_state SET current_entry = NULL
                WHERE current_entry IS NOT NULL AND current_entry NOT IN (SELECT id FROM queue_entry)
                """)
            try run("playlist entries",
                    "DELETE FROM playlist_entry WHERE track_id NOT IN (SELECT id FROM track) OR playlist_id NOT IN (SELECT id FROM playlist)")
            try run("queue playlist references",
                    "UPDATE queue_entry SET playlist_id = NULL WHERE playlist_id IS NOT NULL AND playlist_id NOT IN (SELECT id FROM playlist)")
            try run("lyrics", "DELETE FROM lyrics WHERE track_id NOT IN (SELECT id FROM track)")
            try run("plays", "DELETE FROM play_log WHERE track_id NOT IN (SELECT id FROM track)")
            for kind in FavoriteKind.allCases {
                try run("favorites and dislikes", "DELETE FROM opinion WHERE kind = '\(kind.rawValue)' AND item_id NOT IN (SELECT id FROM \(kind.rawValue))")
            }
            for kind in [RecentItem.Kind.album, .playlist] {
                try run("recent items", "DELETE FROM recent_item WHERE kind = '\(kind.rawValue)' AND item_id NOT IN (SELECT id FROM \(kind.rawValue))")
            }
            for (name, changes) in try SearchIndex.repair(db) { removed[name, default: 0] += changes }
            try run("artwork references", "UPDATE track SET artwork_hash = NULL, artwork_checked = 0 WHERE artwork_hash IS NOT NULL AND artwork_hash NOT IN (SELECT hash FROM artwork)")
            try run("artwork references", "UPDATE album SET artwork_hash = NULL WHERE artwork_hash IS NOT NULL AND artwork_hash NOT IN (SELECT hash FROM artwork)")
            let unused = try Row.fetchAll(db, sql: """
                SELECT * FROM artwork WHERE hash NOT IN (SELECT artwork_hash FROM track WHERE artwork_hash IS NOT NULL)
                    AND hash NOT IN (SELECT artwork_hash FROM album WHERE artwork_hash IS NOT NULL)
                """).map(Self.artwork)
            try run("unused artwork", """
                DELETE FROM artwork WHERE hash NOT IN (SELECT artwork_hash FROM track WHERE artwork_hash IS NOT NULL)
                    AND hash NOT IN (SELECT artwork_hash FROM album WHERE artwork_hash IS NOT NULL)
                """)
            return (removed, unused)
        }
    }

    /// Every path of a library file, for finding files nothing refers to.
    public func libraryFilePaths() throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT path FROM file")) }
    }

    // MARK: artwork

    public func artwork(hash: String) throws -> ArtworkRecord? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM artwork WHERE hash = ?", arguments: [hash]).map(Self.artwork) }
    }

    public func allArtwork() throws -> [ArtworkRecord] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM artwork ORDER BY hash").map(Self.artwork) }
    }

    /// Tracks whose artwork has not been looked for (imported before artwork existed, or reset by repair).
    public func tracksNeedingArtwork(limit: Int) throws -> [(trackID: Int64, path: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT track.id, file.path FROM track JOIN file ON file.track_id = track.id
                WHERE track.artwork_hash IS NULL AND track.artwork_checked = 0 AND track.missing_reason IS NULL
                ORDER BY track.album_id, track.id LIMIT ?
                """, arguments: [limit]).map { ($0["id"], $0["path"]) }
        }
    }

    public func countTracksNeedingArtwork() throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM track JOIN file ON file.track_id = track.id
                WHERE track.artwork_hash IS NULL AND track.artwork_checked = 0 AND track.missing_reason IS NULL
                """) ?? 0
        }
    }

    /// Records what a look for a track's artwork found (nil: none), filling its album's artwork if it has none.
    public func setTrackArtwork(trackID: Int64, _ record: ArtworkRecord?, at now: Date = Date()) throws {
        try write { db in
            if let record {
                try db.execute(sql: "INSERT OR IGNORE INTO artwork (hash, mime, bytes, origin, created_at, colors) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [record.hash, record.mimeType, record.bytes, record.origin, now.timeIntervalSince1970,
                                           record.colors?.joined(separator: " ")])
            }
            try db.execute(sql: "UPDATE track SET artwork_hash = ?, artwork_checked = 1 WHERE id = ?",
                           arguments: [record?.hash, trackID])
            if let hash = record?.hash {
                try db.execute(sql: """
                    UPDATE album SET artwork_hash = ? WHERE artwork_hash IS NULL AND id = (SELECT album_id FROM track WHERE id = ?)
                    """, arguments: [hash, trackID])
            }
        }
    }

    /// Forgets artwork whose file is gone, so the repair looks for it again.
    public func forgetArtwork(hashes: [String]) throws {
        try write { db in
            for hash in hashes {
                try db.execute(sql: "UPDATE track SET artwork_hash = NULL, artwork_checked = 0 WHERE artwork_hash = ?", arguments: [hash])
                try db.execute(sql: "UPDATE album SET artwork_hash = NULL WHERE artwork_hash = ?", arguments: [hash])
                try db.execute(sql: "DELETE FROM artwork WHERE hash = ?", arguments: [hash])
            }
        }
    }

    static func artwork(_ row: Row) -> ArtworkRecord {
        ArtworkRecord(hash: row["hash"], mimeType: row["mime"], bytes: row["bytes"], origin: row["origin"])
    }
}

extension LibraryStore {
    /// Lets the artwork repair look again at tracks that have no artwork (after cover files were added).
    @discardableResult
    public func resetArtworkChecks() throws -> Int {
        try write { db in
            try db.execute(sql: "UPDATE track SET artwork_checked = 0 WHERE artwork_hash IS NULL AND artwork_checked = 1")
            return db.changesCount
        }
    }

    /// Artwork stored before its colours were computed (v7), a few at a time: hash and MIME type.
    public func artworkWithoutColors(limit: Int) throws -> [ArtworkRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT hash, mime, bytes, origin FROM artwork WHERE colors IS NULL LIMIT ?", arguments: [limit])
                .map { ArtworkRecord(hash: $0["hash"], mimeType: $0["mime"], bytes: $0["bytes"], origin: $0["origin"]) }
        }
    }

    /// Stores a picture's colours; an empty list marks a picture whose colours cannot be computed (not asked again).
    public func setArtworkColors(hash: String, _ colors: [String]) throws {
        try write { db in
            try db.execute(sql: "UPDATE artwork SET colors = ? WHERE hash = ?", arguments: [colors.joined(separator: " "), hash])
        }
    }
}
