public import CrateDomain
import Foundation
import GRDB

/// What clients that walk the library a page at a time ask for (the Subsonic API's album lists, random songs,
/// genres and whole-library syncs): each answer costs its own rows, not the whole library's.
extension LibraryStore {
    /// One page of albums in a list's order. The page's ids are chosen from the album and artist tables alone; only
    /// those albums are then read in full (their tracks counted and timed).
    public func albums(sort: ListSort<AlbumSort>, includeDisliked: Bool = false, offset: Int, limit: Int) throws -> [Album] {
        var conditions = [Self.notStreams]
        if !includeDisliked { conditions.append(Self.notDisliked) }
        let first = sort.favoritesFirst ? "\(Self.favoriteAlbum) DESC, " : ""
        return try read { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT album.id FROM album JOIN artist ON artist.id = album.artist_id
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY \(first)\(Self.albumOrder(sort.key, sort.order)) LIMIT ? OFFSET ?
                """, arguments: [max(0, limit), max(0, offset)])
            return try Self.fetch(ids, Self.albumSelect + " WHERE album.id IN", db, suffix: " GROUP BY album.id").map(Self.album)
        }
    }

    /// The id of the album artist called `name` (ASCII case ignored, as the artist table compares names).
    public func albumArtistID(named name: String) throws -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: """
                SELECT artist.id FROM artist
                WHERE artist.name = ? AND EXISTS (SELECT 1 FROM album WHERE album.artist_id = artist.id AND \(Self.notStreams))
                """, arguments: [name])
        }
    }

    /// Album artists with at least one album that has artwork (their picture is that album's).
    public func albumArtistsWithArtwork() throws -> Set<Int64> {
        try read { db in
            Set(try Int64.fetchAll(db, sql: """
                SELECT DISTINCT album.artist_id FROM album WHERE album.artwork_hash IS NOT NULL AND \(Self.notStreams)
                """))
        }
    }

    /// Library tracks in the order they were stored, one page at a time: the cheapest order that stays stable
    /// while a client copies the whole library (new tracks come last).
    public func tracksInStoredOrder(offset: Int, limit: Int) throws -> [Track] {
        try read { db in
            try Row.fetchAll(db, sql: Self.trackSelect + " WHERE " + Self.notStreams + " ORDER BY track.id LIMIT ? OFFSET ?",
                             arguments: [max(0, limit), max(0, offset)]).map(Self.track)
        }
    }

    /// Library tracks by id, in the order given; ids that no longer exist are left out.
    public func tracks(ids: [Int64]) throws -> [Track] {
        try read { db in try Self.fetch(ids, Self.trackSelect + " WHERE track.id IN", db).map(Self.track) }
    }

    /// `count` library tracks at random; with `genre`, only tracks that have that genre value (case ignored); with
    /// `years`, only tracks whose date's year lies in them. Only matching ids are drawn; only the chosen are read.
    public func randomTracks(count: Int, genre: String? = nil, years: ClosedRange<Int>? = nil) throws -> [Track] {
        guard count > 0 else { return [] }
        return try read { db in
            let ids: [Int64]
            if genre == nil, years == nil {
                ids = try Int64.fetchAll(db, sql: """
                    SELECT track.id FROM track JOIN album ON album.id = track.album_id WHERE \(Self.notStreams)
                    ORDER BY random() LIMIT ?
                    """, arguments: [count])
            } else {
                ids = Array(try Self.trackIDs(genre: genre, years: years, orderBy: nil, db).shuffled().prefix(count))
            }
            return try Self.fetch(ids, Self.trackSelect + " WHERE track.id IN", db).map(Self.track)
        }
    }

    /// A page of the library tracks that have the genre value `genre` (case ignored), in the library's artist order.
    public func tracks(genre: String, offset: Int, limit: Int) throws -> [Track] {
        try read { db in
            let all = try Self.trackIDs(genre: genre, years: nil, orderBy: Self.trackOrder(.artist, .ascending), db)
            let ids = Array(all.dropFirst(max(0, offset)).prefix(max(0, limit)))
            return try Self.fetch(ids, Self.trackSelect + " WHERE track.id IN", db).map(Self.track)
        }
    }

    /// Ids of the library tracks with the genre value `genre` (case ignored) and a year in `years`, in `orderBy`.
    /// Only ids, genres and dates are read; LIKE makes a first cut (it ignores ASCII case only), the values are
    /// compared exactly here.
    private static func trackIDs(genre: String?, years: ClosedRange<Int>?, orderBy: String?, _ db: Database) throws -> [Int64] {
        var sql = """
            SELECT track.id, COALESCE(o.genre, track.genre) AS genre, COALESCE(o.date, track.date) AS date
            FROM track JOIN album ON album.id = track.album_id JOIN artist AS album_artist ON album_artist.id = album.artist_id
            LEFT JOIN track_override AS o ON o.track_id = track.id
            WHERE \(notStreams)
            """
        var arguments: StatementArguments = []
        if let genre {
            sql += #" AND COALESCE(o.genre, track.genre) LIKE ? ESCAPE '\'"#
            arguments += [containsPattern(genre)]
        }
        if let orderBy { sql += " ORDER BY " + orderBy }
        let wanted = genre?.lowercased()
        return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row -> Int64? in
            if let wanted, !GenreList.values(of: row["genre"] ?? "").contains(where: { $0.lowercased() == wanted }) {
                return nil
            }
            if let years {
                guard let year = TrackTags.year(of: row["date"]), years.contains(year) else { return nil }
            }
            return row["id"]
        }
    }

    /// Every genre value of the library with how many tracks and albums carry it, by name. One grouped query each
    /// for tracks and albums; a multi-valued genre text counts towards each of its values.
    public func genreCounts() throws -> [GenreCount] {
        try read { db in
            var counts: [String: GenreCount] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT COALESCE(o.genre, track.genre) AS genre, COUNT(*) AS n
                FROM track JOIN album ON album.id = track.album_id LEFT JOIN track_override AS o ON o.track_id = track.id
                WHERE \(Self.notStreams) AND COALESCE(o.genre, track.genre) IS NOT NULL GROUP BY 1
                """) {
                var seen = Set<String>()
                for value in GenreList.values(of: row["genre"] ?? "") where seen.insert(value.lowercased()).inserted {
                    counts[value.lowercased(), default: GenreCount(name: value)].trackCount += row["n"] as Int
                }
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT album.genre AS genre, COUNT(*) AS n FROM album
                WHERE \(Self.notStreams) AND album.genre IS NOT NULL GROUP BY 1
                """) {
                for value in Set(GenreList.values(of: row["genre"] ?? "").map { $0.lowercased() }) {
                    counts[value]?.albumCount += row["n"] as Int
                }
            }
            return counts.values.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
        }
    }
}
