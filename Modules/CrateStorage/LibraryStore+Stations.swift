public import CrateDomain
public import Foundation
import GRDB

/// Saved stations and the tracks behind stream URLs (see `Station`).
extension LibraryStore {
    static let stationSelect = """
        SELECT station.id, station.name, station.url, station.artwork_url, station.track_id, station.added_at,
               EXISTS (SELECT 1 FROM opinion WHERE kind = 'track' AND item_id = station.track_id) AS favorite
        FROM station
        """

    static func station(_ row: Row) -> Station {
        Station(id: row["id"], name: row["name"], url: row["url"], artworkURL: row["artwork_url"], trackID: row["track_id"],
                addedAt: Date(timeIntervalSince1970: row["added_at"]), favorite: row["favorite"])
    }

    /// The track of a stream URL, made on first use in the hidden streams album; `title` names it (a station's name,
    /// or the URL for an unsaved stream).
    public func streamTrack(url: URL, title: String, now: Date = Date()) throws -> Int64 {
        try write { db in try Self.streamTrack(url, title: title, now: now, db) }
    }

    static func streamTrack(_ url: URL, title: String, now: Date, _ db: Database) throws -> Int64 {
        let scheme = (url.scheme ?? "http").lowercased()
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM track WHERE source = ? AND source_id = ?",
                                       arguments: [scheme, url.absoluteString]) {
            try db.execute(sql: "UPDATE track SET title = ?, updated_at = ? WHERE id = ?", arguments: [title, now.timeIntervalSince1970, id])
            return id
        }
        let name = Station.albumTitle
        let artist: Int64
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = ?", arguments: [name]) {
            artist = id
        } else {
            try db.execute(sql: "INSERT INTO artist (name, sort_key) VALUES (?, ?)", arguments: [name, SortName.key(name, sortTag: nil)])
            artist = db.lastInsertedRowID
        }
        let album: Int64
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE identity = ?", arguments: [Station.albumIdentity]) {
            album = id
        } else {
            try db.execute(sql: "INSERT INTO album (identity, title, artist_id, is_compilation, added_at) VALUES (?, ?, ?, 0, ?)",
                           arguments: [Station.albumIdentity, name, artist, now.timeIntervalSince1970])
            album = db.lastInsertedRowID
        }
        // A stream has no length and no fixed format until it plays: codec "stream", duration 0.
        try db.execute(sql: """
            INSERT INTO track (source, source_id, album_id, artist_id, title, artist, codec, sample_rate, channels, duration,
                               added_at, updated_at, artwork_checked)
            VALUES (?, ?, ?, ?, ?, ?, 'stream', 0, 0, 0, ?, ?, 1)
            """, arguments: [scheme, url.absoluteString, album, artist, title, name, now.timeIntervalSince1970, now.timeIntervalSince1970])
        return db.lastInsertedRowID
    }

    public func addStation(name: String, url: URL, artworkURL: String?, now: Date = Date()) throws -> Station {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw StoreError.invalid("a station needs a name") }
        return try write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM station WHERE name = ?", arguments: [trimmed]) == true {
                throw StationError.exists(trimmed)
            }
            let track = try Self.streamTrack(url, title: trimmed, now: now, db)
            try db.execute(sql: "DELETE FROM station WHERE track_id = ?", arguments: [track])   // one name per URL
            try db.execute(sql: "INSERT INTO station (name, url, artwork_url, track_id, added_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [trimmed, url.absoluteString, artworkURL, track, now.timeIntervalSince1970])
            let id = db.lastInsertedRowID
            guard let row = try Row.fetchOne(db, sql: Self.stationSelect + " WHERE station.id = ?", arguments: [id]) else {
                throw StoreError.notFound(kind: "station", query: trimmed)
            }
            return Self.station(row)
        }
    }

    public func stations() throws -> [Station] {
        try read { db in try Row.fetchAll(db, sql: Self.stationSelect + " ORDER BY station.name COLLATE NOCASE").map(Self.station) }
    }

    public func station(id: Int64) throws -> Station? {
        try read { db in try Row.fetchOne(db, sql: Self.stationSelect + " WHERE station.id = ?", arguments: [id]).map(Self.station) }
    }

    /// An id, an exact name (any case), or words that all occur in the name; exactly one match.
    public func resolveStation(_ query: String) throws -> Station {
        let q = query.trimmingCharacters(in: .whitespaces)
        if let id = Int64(q), let found = try station(id: id) { return found }
        let all = try stations()
        if let exact = all.first(where: { $0.name.caseInsensitiveCompare(q) == .orderedSame }) { return exact }
        let words = Self.foldedWords(q)
        let matches = words.isEmpty ? [] : all.filter { Self.name(of: $0, holds: words) }
        guard let first = matches.first else { throw StationError.notFound(q) }
        guard matches.count == 1 else { throw StoreError.ambiguous(kind: "station", query: q, candidates: matches.map(\.name)) }
        return first
    }

    /// Removes the station and its track (so it leaves queues, playlists and favorites too).
    public func removeStation(id: Int64) throws {
        try write { db in
            guard let track = try Int64.fetchOne(db, sql: "SELECT track_id FROM station WHERE id = ?", arguments: [id]) else {
                throw StationError.notFound(String(id))
            }
            try db.execute(sql: "DELETE FROM recent_item WHERE kind = 'station' AND item_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM track WHERE id = ?", arguments: [track])
        }
    }

    /// Stations whose name holds every word (folded as search folds), for the search box's stations group.
    static func stationsMatching(_ words: [String], _ db: Database) throws -> [Station] {
        let folded = words.flatMap { foldedWords($0) }
        return try Row.fetchAll(db, sql: stationSelect + " ORDER BY station.name COLLATE NOCASE").map(station)
            .filter { name(of: $0, holds: folded) }
    }

    /// Whether the station's folded name contains every one of the (folded) `words`.
    private static func name(of station: Station, holds words: [String]) -> Bool {
        let name = SearchFolding.fold(station.name)
        return words.allSatisfy { name.contains($0) }
    }

    private static func foldedWords(_ s: String) -> [String] { SearchFolding.fold(s).split(whereSeparator: \.isWhitespace).map(String.init) }
}
