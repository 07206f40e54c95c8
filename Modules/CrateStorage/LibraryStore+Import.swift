public import CrateDomain
public import Foundation
import GRDB

extension LibraryStore {
    /// Runs `body` (an import or rescan) with the writer's page cache at 64 MiB instead of SQLite's 2 MiB, so the
    /// indexes an import writes stay in memory from batch to batch instead of being read and written again (a
    /// 100,000-file import: 30.5–34.1 → 27.0–27.3 s, its system time halved); back to the default afterwards, so an
    /// idle daemon keeps no large cache. The WAL is checkpointed every 64 MiB instead of every 4 MiB meanwhile: the
    /// pages each batch rewrites (the indexes') are copied into the database once per 64 MiB, not once per batch
    /// (a 100,000-file import: 12.71 → 12.20 s, against 12.07 s with the WAL never checkpointed while importing).
    public func withImportCache<T>(_ body: () throws -> T) throws -> T {
        try setWriterCache(kibibytes: 65_536)
        // Giving the memory back cannot fail in a way worth reporting over the import's own outcome.
        defer { try? setWriterCache(kibibytes: 2_000, shrink: true) }
        return try body()
    }

    private func setWriterCache(kibibytes: Int, shrink: Bool = false) throws {
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(shrink ? 1_000 : 16_384)")
                if shrink { try db.execute(sql: "PRAGMA shrink_memory") }
            }
        } catch {
            throw StoreError.query(Self.reason(error))
        }
    }

    /// Saves a scan batch as reference imports (the files stay where they are), without content hashes.
    public func save(_ batch: ScanBatch, at now: Date = Date()) throws {
        let entries = batch.tracks.map {
            LibraryEntry(track: $0, mode: .reference, originalPath: $0.path, originalStamp: $0.stamp, contentHash: nil)
        }
        try save(ImportBatch(entries: entries, failures: batch.failures.map { FailedFile(failure: $0, stamp: nil) }), at: now)
    }

    /// Saves an import batch (the folders decided since the last save) in one transaction: upserts tracks (by TrackRef), their files, artists and
    /// albums (by album identity), relinks, import records, artwork rows and failures; clears failures of
    /// files that now read fine. Albums left without tracks by a re-grouping are removed. The search index takes the
    /// batch's new rows at its end (`SearchIndex.pauseInserts`).
    public func save(_ batch: ImportBatch, at now: Date = Date()) throws {
        let time = now.timeIntervalSince1970
        try write { db in
            let indexFrom = try SearchIndex.pauseInserts(db)
            var touchedAlbums = Set<Int64>()
            var albumArtwork: [Int64: String] = [:]
            // Failures are few (usually none): with none recorded, a saved file has none to clear.
            let failuresRecorded = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM scan_failure)")) ?? true
            for art in batch.artwork {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO artwork (hash, mime, bytes, origin, created_at, colors) VALUES (?, ?, ?, ?, ?, ?)")
                    .execute(arguments: [art.hash, art.mimeType, art.bytes, art.origin, time, art.colors?.joined(separator: " ")])
            }
            for entry in batch.entries {
                let track = entry.track
                let trackID: Int64
                var albumID: Int64?
                if let relink = entry.relinkTrackID {
                    trackID = relink
                    // The ref is where the file is, so it moves with the file.
                    try db.cachedStatement(sql: """
                        UPDATE track SET source = ?, source_id = ?, missing_reason = NULL, missing_detail = NULL, updated_at = ?
                        WHERE id = ?
                        """).execute(arguments: [track.ref.source, track.ref.id, time, relink])
                } else {
                    (trackID, albumID) = try upsertTrack(track, in: db, now: time, touched: &touchedAlbums)
                }
                try db.cachedStatement(sql: """
                    INSERT INTO file (track_id, path, size, mtime, import_mode, original_path, content_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(track_id) DO UPDATE SET path = excluded.path, size = excluded.size, mtime = excluded.mtime,
                        import_mode = excluded.import_mode, original_path = excluded.original_path,
                        content_hash = COALESCE(excluded.content_hash, file.content_hash)
                    """).execute(arguments: [trackID, track.path, track.size, track.modified.timeIntervalSince1970,
                                     entry.mode.rawValue, entry.mode.copiesFiles ? entry.originalPath : nil, entry.contentHash])
                if let hash = track.artworkHash,
                   let album = try albumID ?? Int64.fetchOne(db.cachedStatement(sql: "SELECT album_id FROM track WHERE id = ?"),
                                                            arguments: [trackID]),
                   albumArtwork[album] == nil {
                    albumArtwork[album] = hash
                }
                try record(path: entry.originalPath, stamp: entry.originalStamp,
                           outcome: entry.relinkTrackID == nil ? "imported" : "relinked", trackID: trackID,
                           mode: entry.mode, in: db, now: time)
                if failuresRecorded {
                    try db.cachedStatement(sql: "DELETE FROM scan_failure WHERE path = ?").execute(arguments: [entry.originalPath])
                }
            }
            for dup in batch.duplicates {
                // A duplicate of a file saved in this same batch points at the track that file just became.
                let existing = try dup.existingTrackID ?? Int64.fetchOne(db.cachedStatement(sql: """
                    SELECT track_id FROM import_record WHERE source_path = ? AND outcome IN ('imported', 'relinked')
                    """), arguments: [dup.existingPath])
                try record(path: dup.path, stamp: dup.stamp, outcome: "duplicate", trackID: existing,
                           mode: batch.entries.first?.mode ?? .reference, in: db, now: time)
                if failuresRecorded {
                    try db.cachedStatement(sql: "DELETE FROM scan_failure WHERE path = ?").execute(arguments: [dup.path])
                }
            }
            for failed in batch.failures {
                try db.cachedStatement(sql: """
                    INSERT INTO scan_failure (path, reason, failed_at, folder, size, mtime) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET reason = excluded.reason, failed_at = excluded.failed_at,
                        folder = excluded.folder, size = excluded.size, mtime = excluded.mtime
                    """).execute(arguments: [failed.failure.path, failed.failure.reason, time, folderOf(failed.failure.path),
                                     failed.stamp?.size, failed.stamp?.modified])
            }
            for (album, hash) in albumArtwork {
                try db.cachedStatement(sql: "UPDATE album SET artwork_hash = ? WHERE id = ? AND artwork_hash IS NULL")
                    .execute(arguments: [hash, album])
            }
            for album in touchedAlbums {
                try db.cachedStatement(sql: "DELETE FROM album WHERE id = ? AND NOT EXISTS (SELECT 1 FROM track WHERE album_id = ?)")
                    .execute(arguments: [album, album])
            }
            try SearchIndex.indexNewRows(since: indexFrom, db)
        }
    }

    /// Inserts or updates the track row for `track`'s ref and returns its id and album; notes the album it left, if any.
    private func upsertTrack(_ track: ScannedTrack, in db: Database, now: Double,
                             touched: inout Set<Int64>) throws -> (track: Int64, album: Int64) {
        let old = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, album_id FROM track WHERE source = ? AND source_id = ?"),
                                   arguments: [track.ref.source, track.ref.id])
        if let old { touched.insert(old[1]) }
        let albumID = try albumID(for: track, in: db, now: now)
        let artistID = try artistID(named: track.artist, sortTag: track.tags.artistSort, in: db)
        let t = track.tags, i = track.info
        try db.cachedStatement(sql: """
            INSERT INTO track (source, source_id, album_id, artist_id, title, artist, tag_album_artist, tag_album,
                genre, date, track_number, track_total, disc_number, disc_total, disc_subtitle, musicbrainz_album_id,
                codec, sample_rate, channels, bits_per_sample, frames, duration, added_at, updated_at,
                artwork_hash, artwork_checked, rg_track_gain, rg_track_peak, rg_album_gain, rg_album_peak)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
            ON CONFLICT(source, source_id) DO UPDATE SET
                album_id = excluded.album_id, artist_id = excluded.artist_id, title = excluded.title,
                artist = excluded.artist, tag_album_artist = excluded.tag_album_artist, tag_album = excluded.tag_album,
                genre = excluded.genre, date = excluded.date, track_number = excluded.track_number,
                track_total = excluded.track_total, disc_number = excluded.disc_number,
                disc_total = excluded.disc_total, disc_subtitle = excluded.disc_subtitle,
                musicbrainz_album_id = excluded.musicbrainz_album_id,
                codec = excluded.codec, sample_rate = excluded.sample_rate, channels = excluded.channels,
                bits_per_sample = excluded.bits_per_sample, frames = excluded.frames,
                duration = excluded.duration, updated_at = excluded.updated_at,
                artwork_hash = excluded.artwork_hash, artwork_checked = 1,
                rg_track_gain = excluded.rg_track_gain, rg_track_peak = excluded.rg_track_peak,
                rg_album_gain = excluded.rg_album_gain, rg_album_peak = excluded.rg_album_peak,
                missing_reason = NULL, missing_detail = NULL
            """).execute(arguments: [
                track.ref.source, track.ref.id, albumID, artistID, track.title, track.artist,
                t.albumArtist, t.album, t.genre, t.date, t.trackNumber, t.trackTotal, t.discNumber,
                t.discTotal, t.discSubtitle, t.musicBrainzAlbumID, i.codec, i.sampleRate, i.channels, i.bitsPerSample,
                i.frames, i.duration ?? 0, now, now, track.artworkHash,
                t.replayGain?.trackGain, t.replayGain?.trackPeak, t.replayGain?.albumGain, t.replayGain?.albumPeak,
            ])
        // The row found before was updated in place; otherwise the insert made a new one.
        let id: Int64 = old?[0] ?? db.lastInsertedRowID
        // A new track has no lyrics yet: only one that was there before can have embedded lyrics to remove.
        if t.lyrics != nil || old != nil { try saveEmbeddedLyrics(t.lyrics, trackID: id, in: db, now: now) }
        return (id, albumID)
    }

    /// Embedded lyrics follow the file: saved, replaced, or removed when the tags no longer have them
    /// (lyrics from another provider are kept).
    private func saveEmbeddedLyrics(_ text: String?, trackID: Int64, in db: Database, now: Double) throws {
        if let text {
            try db.cachedStatement(sql: """
                INSERT INTO lyrics (track_id, text, provider, updated_at) VALUES (?, ?, 'embedded', ?)
                ON CONFLICT(track_id) DO UPDATE SET text = excluded.text, provider = 'embedded', updated_at = excluded.updated_at
                WHERE lyrics.text <> excluded.text OR lyrics.provider <> 'embedded'
                """).execute(arguments: [trackID, text, now])
        } else {
            try db.cachedStatement(sql: "DELETE FROM lyrics WHERE track_id = ? AND provider = 'embedded'").execute(arguments: [trackID])
        }
    }

    private func record(path: String, stamp: FileStamp, outcome: String, trackID: Int64?, mode: ImportMode,
                        in db: Database, now: Double) throws {
        try db.cachedStatement(sql: """
            INSERT INTO import_record (source_path, folder, size, mtime, outcome, track_id, mode, imported_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(source_path) DO UPDATE SET folder = excluded.folder, size = excluded.size, mtime = excluded.mtime,
                outcome = excluded.outcome, track_id = excluded.track_id, mode = excluded.mode, imported_at = excluded.imported_at
            """).execute(arguments: [path, folderOf(path), stamp.size, stamp.modified, outcome, trackID, mode.rawValue, now])
    }

    /// Files that could not be imported, newest first.
    public func scanFailures() throws -> [ScanFailure] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, reason FROM scan_failure ORDER BY failed_at DESC, path")
                .map { ScanFailure(path: $0["path"], reason: $0["reason"]) }
        }
    }

    /// The artist row for `name`; a sort tag seen later sets its sort key (lists ignore leading articles otherwise).
    private func artistID(named name: String, sortTag: String?, in db: Database) throws -> Int64 {
        if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, sort_name FROM artist WHERE name = ?"), arguments: [name]) {
            let id: Int64 = row["id"]
            if let sortTag, sortTag != (row["sort_name"] as String?) {
                try db.cachedStatement(sql: "UPDATE artist SET sort_name = ?, sort_key = ? WHERE id = ?")
                    .execute(arguments: [sortTag, SortName.key(name, sortTag: sortTag), id])
            }
            return id
        }
        try db.cachedStatement(sql: "INSERT INTO artist (name, sort_name, sort_key) VALUES (?, ?, ?)")
            .execute(arguments: [name, sortTag, SortName.key(name, sortTag: sortTag)])
        return db.lastInsertedRowID
    }

    /// The album row for the track's album identity; created on first sight. The first track seen
    /// names the album; later tracks fill in a missing date and add their genres (the album holds
    /// every genre value of its tracks, so the taxonomy and `genre:` search see them all).
    private func albumID(for track: ScannedTrack, in db: Database, now: Double) throws -> Int64 {
        let key = track.album
        let sortTag = track.tags.albumArtist == key.artist ? track.tags.albumArtistSort
            : (track.tags.albumArtist == nil && track.artist == key.artist ? track.tags.artistSort : nil)
        if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, genre, date IS NOT NULL, year IS NOT NULL FROM album WHERE identity = ?"),
                                      arguments: [key.identity]) {
            let id: Int64 = row[0]
            let genre: String? = row[1], hasDate: Bool = row[2], hasYear: Bool = row[3]
            let genres = GenreList.adding(track.tags.genre, to: genre)
            // Most tracks of an album bring nothing new to it: then the row is left alone (an update per track was a
            // tenth of an import's writing).
            if genres != genre || (!hasDate && key.date != nil) || (!hasYear && track.tags.year != nil) {
                try db.cachedStatement(sql: """
                    UPDATE album SET date = COALESCE(date, ?), year = COALESCE(year, ?), genre = ? WHERE id = ?
                    """).execute(arguments: [key.date, track.tags.year, genres, id])
            }
            // A sort tag on a later track of the album still names how its album artist sorts.
            if sortTag != nil { _ = try artistID(named: key.artist, sortTag: sortTag, in: db) }
            return id
        }
        let artist = try artistID(named: key.artist, sortTag: sortTag, in: db)
        try db.cachedStatement(sql: """
            INSERT INTO album (identity, title, artist_id, date, year, genre, is_compilation, added_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [key.identity, key.title, artist, key.date, track.tags.year, track.tags.genre,
                             key.isCompilation, now])
        return db.lastInsertedRowID
    }
}
