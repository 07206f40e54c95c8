public import CrateDomain
import Foundation
import GRDB

extension LibraryStore {
    static let albumSelect = """
        SELECT album.id, album.identity, album.title, artist.name AS artist, album.date, album.year, album.genre,
               album.is_compilation, album.added_at, album.artwork_hash, album.play_count, album.last_played_at,
               (SELECT colors FROM artwork WHERE artwork.hash = album.artwork_hash) AS artwork_colors,
               (SELECT value FROM opinion WHERE kind = 'album' AND item_id = album.id) AS opinion,
               COUNT(track.id) AS track_count,
               MAX(1, COUNT(DISTINCT COALESCE(track.disc_number, 1))) AS disc_count,
               COALESCE(SUM(track.duration), 0) AS duration
        FROM album
        JOIN artist ON artist.id = album.artist_id
        LEFT JOIN track ON track.album_id = album.id
        """

    public func album(id: Int64) throws -> Album? {
        try read { db in
            try Row.fetchOne(db.cachedStatement(sql: Self.albumSelect + " WHERE album.id = ? GROUP BY album.id"), arguments: [id])
                .map(Self.album)
        }
    }

    /// Resolves what a user typed for ALBUM: an id, an exact title, or words that all occur in
    /// "artist title". Exactly one match is required.
    public func resolveAlbum(_ query: String) throws -> Album {
        let q = query.trimmingCharacters(in: .whitespaces)
        if let id = Int64(q), let album = try album(id: id) { return album }
        let all = try albums(includeDisliked: true)
        let exact = all.filter { $0.title.caseInsensitiveCompare(q) == .orderedSame }
        if exact.count == 1, let only = exact.first { return only }
        let words = q.lowercased().split(separator: " ").map(String.init)
        let matches = (exact.isEmpty ? all : exact).filter { album in
            let haystack = "\(album.artist) \(album.title)".lowercased()
            return words.allSatisfy { haystack.contains($0) }
        }
        if matches.count == 1, let only = matches.first { return only }
        if matches.isEmpty { throw StoreError.albumNotFound(q) }
        throw StoreError.ambiguousAlbum(query: q, candidates: matches.map { "\($0.id)  \($0.artist) — \($0.title)" })
    }

    /// Columns for `track(_:)`; callers add WHERE/ORDER BY. Display fields prefer the user's overrides
    /// (metadata layering); album and artist ids stay those of the original tags.
    static let trackSelect = """
        SELECT track.id, track.source, track.source_id, track.album_id,
               COALESCE(o.title, track.title) AS title, COALESCE(o.artist, track.artist) AS artist,
               COALESCE(o.album_artist, album_artist.name) AS album_artist, COALESCE(o.album, album.title) AS album_title,
               COALESCE(o.genre, track.genre) AS genre, COALESCE(o.date, track.date) AS date,
               COALESCE(o.track_number, track.track_number) AS track_number, track.track_total,
               COALESCE(o.disc_number, track.disc_number) AS disc_number, track.disc_total, track.disc_subtitle,
               track.duration, track.codec, track.sample_rate, track.channels, track.bits_per_sample, track.frames,
               track.artwork_hash, track.missing_reason, track.missing_detail, o.track_id IS NOT NULL AS edited,
               (SELECT colors FROM artwork WHERE artwork.hash = track.artwork_hash) AS artwork_colors,
               file.path, file.import_mode, track.play_count, track.last_played_at, track.added_at,
               EXISTS (SELECT 1 FROM opinion WHERE kind = 'track' AND item_id = track.id) AS favorite
        FROM track
        JOIN album ON album.id = track.album_id
        JOIN artist AS album_artist ON album_artist.id = album.artist_id
        LEFT JOIN track_override AS o ON o.track_id = track.id
        LEFT JOIN file ON file.track_id = track.id
        """

    /// The album's tracks in album order: disc, then track number (a corrected number counts), then file path.
    public func tracks(albumID: Int64) throws -> [Track] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: Self.trackSelect + """
                 WHERE track.album_id = ?
                ORDER BY COALESCE(COALESCE(o.disc_number, track.disc_number), 1),
                         COALESCE(o.track_number, track.track_number) IS NULL,
                         COALESCE(o.track_number, track.track_number), file.path
                """), arguments: [albumID]).map(Self.track)
        }
    }

    /// Which of `ids` are not tracks of the library (the ids go in as one JSON array: one statement, prepared once).
    public func unknownTrackIDs(_ ids: [Int64]) throws -> [Int64] {
        let wanted = Array(Set(ids))
        return try read { db in
            let known = Set(try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM track WHERE id IN (SELECT value FROM json_each(?))"),
                                               arguments: [Self.idList(wanted)]))
            return wanted.filter { !known.contains($0) }.sorted()
        }
    }

    public func track(id: Int64) throws -> Track? {
        try read { db in try Row.fetchOne(db.cachedStatement(sql: Self.trackSelect + " WHERE track.id = ?"), arguments: [id]).map(Self.track) }
    }

    /// "#rrggbb #rrggbb" into its two colours (nil when not computed or not computable).
    static func colors(_ row: Row) -> [String]? {
        guard let text = row["artwork_colors"] as String?, !text.isEmpty else { return nil }
        return text.split(separator: " ").map(String.init)
    }

    static func album(_ row: Row) -> Album {
        var album = Album(id: row["id"], identity: row["identity"], title: row["title"], artist: row["artist"], date: row["date"],
              year: row["year"], genre: row["genre"], isCompilation: row["is_compilation"],
              trackCount: row["track_count"], discCount: row["disc_count"], duration: row["duration"],
              addedAt: Date(timeIntervalSince1970: row["added_at"]), artworkHash: row["artwork_hash"],
              opinion: (row["opinion"] as String?).flatMap(Opinion.init(rawValue:)), playCount: row["play_count"],
              lastPlayedAt: (row["last_played_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
        album.artworkColors = colors(row)
        return album
    }

    static func track(_ row: Row) -> Track {
        var track = Track(id: row["id"], ref: TrackRef(source: row["source"], id: row["source_id"]), albumID: row["album_id"],
              title: row["title"], artist: row["artist"], albumArtist: row["album_artist"], album: row["album_title"],
              genre: row["genre"], date: row["date"], trackNumber: row["track_number"], trackTotal: row["track_total"],
              discNumber: row["disc_number"], discTotal: row["disc_total"], discSubtitle: row["disc_subtitle"],
              duration: row["duration"],
              info: StreamInfo(codec: row["codec"], sampleRate: row["sample_rate"], channels: row["channels"],
                               bitsPerSample: row["bits_per_sample"], frames: row["frames"]),
              path: row["path"], artworkHash: row["artwork_hash"],
              missing: (row["missing_reason"] as String?).flatMap(MissingReason.init(rawValue:)),
              importMode: (row["import_mode"] as String?).flatMap(ImportMode.init(rawValue:)), edited: row["edited"],
              favorite: row["favorite"], playCount: row["play_count"],
              lastPlayedAt: (row["last_played_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
              addedAt: (row["added_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
        track.artworkColors = colors(row)
        return track
    }
}
