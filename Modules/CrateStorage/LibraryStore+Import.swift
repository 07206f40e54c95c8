import CrateDomain
import Foundation
import GRDB

extension LibraryStore {
    /// Saves one scanned folder in one transaction: upserts tracks (by TrackRef), their files,
    /// artists and albums (by album identity), records failures, and clears failures of files
    /// that now read fine. Albums left without tracks by a re-grouping are removed.
    public func save(_ batch: ScanBatch, at now: Date = Date()) throws {
        try write { db in
            var touchedAlbums = Set<Int64>()
            for track in batch.tracks {
                if let old = try Int64.fetchOne(db, sql: "SELECT album_id FROM track WHERE source = ? AND source_id = ?",
                                                arguments: [track.ref.source, track.ref.id]) {
                    touchedAlbums.insert(old)
                }
                let albumID = try albumID(for: track, in: db, now: now)
                let artistID = try artistID(named: track.artist, in: db)
                let t = track.tags, i = track.info
                try db.execute(sql: """
                    INSERT INTO track (source, source_id, album_id, artist_id, title, artist, tag_album_artist, tag_album,
                        genre, date, track_number, track_total, disc_number, disc_total, musicbrainz_album_id,
                        codec, sample_rate, channels, bits_per_sample, frames, duration, added_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(source, source_id) DO UPDATE SET
                        album_id = excluded.album_id, artist_id = excluded.artist_id, title = excluded.title,
                        artist = excluded.artist, tag_album_artist = excluded.tag_album_artist, tag_album = excluded.tag_album,
                        genre = excluded.genre, date = excluded.date, track_number = excluded.track_number,
                        track_total = excluded.track_total, disc_number = excluded.disc_number,
                        disc_total = excluded.disc_total, musicbrainz_album_id = excluded.musicbrainz_album_id,
                        codec = excluded.codec, sample_rate = excluded.sample_rate, channels = excluded.channels,
                        bits_per_sample = excluded.bits_per_sample, frames = excluded.frames,
                        duration = excluded.duration, updated_at = excluded.updated_at
                    """, arguments: [
                        track.ref.source, track.ref.id, albumID, artistID, track.title, track.artist,
                        t.albumArtist, t.album, t.genre, t.date, t.trackNumber, t.trackTotal, t.discNumber,
                        t.discTotal, t.musicBrainzAlbumID, i.codec, i.sampleRate, i.channels, i.bitsPerSample,
                        i.frames, i.duration ?? 0, now.timeIntervalSince1970, now.timeIntervalSince1970,
                    ])
                let trackID = try Int64.fetchOne(db, sql: "SELECT id FROM track WHERE source = ? AND source_id = ?",
                                                 arguments: [track.ref.source, track.ref.id]) ?? db.lastInsertedRowID
                try db.execute(sql: """
                    INSERT INTO file (track_id, path, size, mtime) VALUES (?, ?, ?, ?)
                    ON CONFLICT(track_id) DO UPDATE SET path = excluded.path, size = excluded.size, mtime = excluded.mtime
                    """, arguments: [trackID, track.path, track.size, track.modified.timeIntervalSince1970])
                try db.execute(sql: "DELETE FROM scan_failure WHERE path = ?", arguments: [track.path])
            }
            for failure in batch.failures {
                try db.execute(sql: """
                    INSERT INTO scan_failure (path, reason, failed_at) VALUES (?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET reason = excluded.reason, failed_at = excluded.failed_at
                    """, arguments: [failure.path, failure.reason, now.timeIntervalSince1970])
            }
            for album in touchedAlbums {
                try db.execute(sql: "DELETE FROM album WHERE id = ? AND NOT EXISTS (SELECT 1 FROM track WHERE album_id = ?)",
                               arguments: [album, album])
            }
        }
    }

    /// Files that could not be imported, newest first.
    public func scanFailures() throws -> [ScanFailure] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, reason FROM scan_failure ORDER BY failed_at DESC, path")
                .map { ScanFailure(path: $0["path"], reason: $0["reason"]) }
        }
    }

    private func artistID(named name: String, in db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = ?", arguments: [name]) { return id }
        try db.execute(sql: "INSERT INTO artist (name) VALUES (?)", arguments: [name])
        return db.lastInsertedRowID
    }

    /// The album row for the track's album identity; created on first sight. The first track seen
    /// names the album; later tracks fill in a missing date or genre.
    private func albumID(for track: ScannedTrack, in db: Database, now: Date) throws -> Int64 {
        let key = track.album
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE identity = ?", arguments: [key.identity]) {
            try db.execute(sql: "UPDATE album SET date = COALESCE(date, ?), year = COALESCE(year, ?), genre = COALESCE(genre, ?) WHERE id = ?",
                           arguments: [key.date, track.tags.year, track.tags.genre, id])
            return id
        }
        let artist = try artistID(named: key.artist, in: db)
        try db.execute(sql: """
            INSERT INTO album (identity, title, artist_id, date, year, genre, is_compilation, added_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [key.identity, key.title, artist, key.date, track.tags.year, track.tags.genre,
                             key.isCompilation, now.timeIntervalSince1970])
        return db.lastInsertedRowID
    }
}
