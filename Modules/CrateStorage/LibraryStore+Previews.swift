public import CrateDomain
public import Foundation
import GRDB

/// Catalog previews (see `CatalogPreview`): the stream tracks of a catalog album's 30-second previews, kept in one
/// hidden album per catalog album, which `notStreams` leaves out of every list, count, search and feed.
extension LibraryStore {
    /// Stores the previews of `album` (a catalog album, `source` its scheme and `externalID` its id) for `tracks`, in
    /// the order given, and returns their track ids in that order. Tracks without a preview URL must be left out by the
    /// caller (`CatalogPreview.previewURL`); any that come anyway are skipped.
    ///
    /// A preview is one track per URL (a track's ref is unique), as any stream: playing the album again finds the same
    /// tracks and refreshes their titles, numbers and durations from the catalog. A song whose preview URL changed gets
    /// a new track; the old one leaves the album unless the queue, a playlist, favorites or history still name it.
    /// The same URL in two catalog albums (a single and its album) is one track, in the album played last. A URL that
    /// is a saved station's or an ad hoc stream's stays theirs and is queued as it is.
    public func storePreviews(of album: Album, tracks: [Track], now: Date = Date()) throws -> [Int64] {
        let time = now.timeIntervalSince1970
        return try write { db in
            let identity = CatalogPreview.albumIdentity(catalogAlbum: CatalogPreview.reference(album))
            let artistName = album.artist.trimmingCharacters(in: .whitespaces).isEmpty ? "Unknown Artist" : album.artist
            let artist = try Self.previewArtist(artistName, db)
            let albumID: Int64
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE identity = ?", arguments: [identity]) {
                albumID = id
                try db.execute(sql: """
                    UPDATE album SET title = ?, artist_id = ?, date = ?, year = ?, genre = ?, is_compilation = ? WHERE id = ?
                    """, arguments: [album.title, artist, album.date, album.year, album.genre, album.isCompilation, id])
            } else {
                try db.execute(sql: """
                    INSERT INTO album (identity, title, artist_id, date, year, genre, is_compilation, added_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [identity, album.title, artist, album.date, album.year, album.genre, album.isCompilation, time])
                albumID = db.lastInsertedRowID
            }
            var ids: [Int64] = []
            for track in tracks {
                guard let url = CatalogPreview.previewURL(track) else { continue }
                let scheme = (url.scheme ?? "https").lowercased()
                let facts: [any DatabaseValueConvertible] = [
                    albumID, artist, track.title, track.artist.isEmpty ? artistName : track.artist, track.genre, track.date,
                    track.trackNumber, track.trackTotal, track.discNumber, track.discTotal, track.discSubtitle, track.duration,
                ]
                if let row = try Row.fetchOne(db, sql: """
                    SELECT track.id, album.identity FROM track JOIN album ON album.id = track.album_id
                    WHERE track.source = ? AND track.source_id = ?
                    """, arguments: [scheme, url.absoluteString]) {
                    let id: Int64 = row["id"]
                    // A station's (or an ad hoc stream's) track is left as it is; a preview is brought up to date.
                    if CatalogPreview.catalogAlbum(identity: row["identity"]) != nil {
                        try db.execute(sql: """
                            UPDATE track SET album_id = ?, artist_id = ?, title = ?, artist = ?, genre = ?, date = ?,
                                             track_number = ?, track_total = ?, disc_number = ?, disc_total = ?,
                                             disc_subtitle = ?, duration = ?, updated_at = ?
                            WHERE id = ?
                            """, arguments: StatementArguments(facts + [time, id]))
                    }
                    ids.append(id)
                    continue
                }
                // Format facts are the catalog's (AAC); the decoder reports the real ones when the preview plays.
                try db.execute(sql: """
                    INSERT INTO track (album_id, artist_id, title, artist, genre, date, track_number, track_total, disc_number,
                                       disc_total, disc_subtitle, duration, source, source_id, codec, sample_rate, channels,
                                       added_at, updated_at, artwork_checked)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
                    """, arguments: StatementArguments(facts + [scheme, url.absoluteString, track.info.codec,
                                                                 track.info.sampleRate, track.info.channels, time, time]))
                ids.append(db.lastInsertedRowID)
            }
            try Self.retireStalePreviews(albumID: albumID, keeping: ids, db)
            return ids
        }
    }

    /// `scheme:id` of the catalog album whose previews album `albumID` holds; nil for any other album.
    public func previewCatalogAlbum(albumID: Int64) throws -> String? {
        try read { db in try Self.previewCatalogAlbum(albumID: albumID, db) }
    }

    static func previewCatalogAlbum(albumID: Int64, _ db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT identity FROM album WHERE id = ?"), arguments: [albumID])
            .flatMap(CatalogPreview.catalogAlbum(identity:))
    }

    /// The artist row named `name` (shared with the library's artist of that name, whose counts leave previews out).
    private static func previewArtist(_ name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = ?", arguments: [name]) { return id }
        try db.execute(sql: "INSERT INTO artist (name, sort_key) VALUES (?, ?)", arguments: [name, SortName.key(name, sortTag: nil)])
        return db.lastInsertedRowID
    }

    /// Tracks of the preview album that the catalog no longer lists (their preview URL changed): removed, unless
    /// something the listener keeps still names them (the queue, a playlist, a favorite, history).
    private static func retireStalePreviews(albumID: Int64, keeping ids: [Int64], _ db: Database) throws {
        let kept = ids.isEmpty ? "" : " AND id NOT IN (\(ids.map(String.init).joined(separator: ",")))"
        try db.execute(sql: """
            DELETE FROM track WHERE album_id = ?\(kept)
                AND id NOT IN (SELECT track_id FROM queue_entry)
                AND id NOT IN (SELECT track_id FROM playlist_entry)
                AND id NOT IN (SELECT item_id FROM opinion WHERE kind = 'track')
                AND id NOT IN (SELECT track_id FROM play_history)
                AND id NOT IN (SELECT track_id FROM station)
            """, arguments: [albumID])
    }
}
