public import CrateDomain
public import Foundation
import GRDB

/// Playlists: a name, tracks in manual order (duplicates allowed), and the times that sort them.
extension LibraryStore {
    static let playlistSelect = """
        SELECT playlist.id, playlist.name, playlist.created_at, playlist.updated_at, playlist.last_played_at,
               (SELECT COUNT(*) FROM playlist_entry e WHERE e.playlist_id = playlist.id) AS track_count,
               (SELECT COALESCE(SUM(t.duration), 0) FROM playlist_entry e JOIN track t ON t.id = e.track_id
                WHERE e.playlist_id = playlist.id) AS duration,
               EXISTS (SELECT 1 FROM opinion WHERE kind = 'playlist' AND item_id = playlist.id) AS favorite
        FROM playlist
        """

    static func playlist(_ row: Row) -> Playlist {
        Playlist(id: row["id"], name: row["name"], trackCount: row["track_count"], duration: row["duration"],
                 createdAt: Date(timeIntervalSince1970: row["created_at"]),
                 updatedAt: Date(timeIntervalSince1970: row["updated_at"]),
                 lastPlayedAt: (row["last_played_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                 favorite: row["favorite"])
    }

    public func playlists(sort: ListSort<PlaylistSort> = ListSort(.title)) throws -> [Playlist] {
        let dir = sort.order == .ascending ? "ASC" : "DESC"
        let key = switch sort.key {
        case .title: "playlist.name COLLATE NOCASE \(dir)"
        case .created: "playlist.created_at \(dir)"
        case .updated: "playlist.updated_at \(dir)"
        // Never played sorts after played in either direction.
        case .lastPlayed: "playlist.last_played_at IS NULL, playlist.last_played_at \(dir)"
        }
        return try read { db in
            try Row.fetchAll(db, sql: Self.playlistSelect + " ORDER BY \(sort.favoritesFirst ? "favorite DESC, " : "")\(key), playlist.id")
                .map(Self.playlist)
        }
    }

    public func playlist(id: Int64) throws -> Playlist? {
        try read { db in try Row.fetchOne(db, sql: Self.playlistSelect + " WHERE playlist.id = ?", arguments: [id]).map(Self.playlist) }
    }

    /// A playlist by id or name (case-insensitive).
    public func resolvePlaylist(_ query: String) throws -> Playlist {
        let q = query.trimmingCharacters(in: .whitespaces)
        if let id = Int64(q), let found = try playlist(id: id) { return found }
        let found = try read { db in
            try Row.fetchOne(db, sql: Self.playlistSelect + " WHERE playlist.name = ? COLLATE NOCASE", arguments: [q]).map(Self.playlist)
        }
        guard let found else { throw StoreError.notFound(kind: "playlist", query: q) }
        return found
    }

    public func createPlaylist(name: String, at now: Date = Date()) throws -> Playlist {
        let clean = try Self.playlistName(name)
        let id = try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM playlist WHERE name = ? COLLATE NOCASE", arguments: [clean]) == nil else {
                throw StoreError.invalid("a playlist named '\(clean)' exists already")
            }
            try db.execute(sql: "INSERT INTO playlist (name, created_at, updated_at) VALUES (?, ?, ?)",
                           arguments: [clean, now.timeIntervalSince1970, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        guard let playlist = try playlist(id: id) else { throw StoreError.notFound(kind: "playlist", query: clean) }
        return playlist
    }

    public func renamePlaylist(id: Int64, to name: String, at now: Date = Date()) throws {
        let clean = try Self.playlistName(name)
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM playlist WHERE name = ? COLLATE NOCASE AND id <> ?",
                                   arguments: [clean, id]) == nil else {
                throw StoreError.invalid("a playlist named '\(clean)' exists already")
            }
            try db.execute(sql: "UPDATE playlist SET name = ?, updated_at = ? WHERE id = ?",
                           arguments: [clean, now.timeIntervalSince1970, id])
            guard db.changesCount == 1 else { throw StoreError.notFound(kind: "playlist", query: String(id)) }
        }
    }

    public func deletePlaylist(id: Int64) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM playlist WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw StoreError.notFound(kind: "playlist", query: String(id)) }
        }
    }

    /// The playlist's tracks, in manual order or sorted.
    public func playlistEntries(id: Int64, sort: ListSort<PlaylistTrackSort> = ListSort(.manual)) throws -> [PlaylistEntry] {
        let dir = sort.order == .ascending ? "ASC" : "DESC"
        let key = switch sort.key {
        case .manual: "e.position \(dir)"
        case .title: "COALESCE(o.title, track.title) COLLATE NOCASE \(dir)"
        case .artist: "COALESCE(o.artist_sort_key, (SELECT sort_key FROM artist WHERE artist.id = track.artist_id)) \(dir)"
        case .album: "COALESCE(o.album, album.title) COLLATE NOCASE \(dir), COALESCE(track.disc_number, 1), track.track_number"
        case .year: "COALESCE(o.date, track.date) IS NULL, CAST(substr(COALESCE(o.date, track.date), 1, 4) AS INTEGER) \(dir)"
        case .added: "e.added_at \(dir)"
        }
        return try read { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM playlist WHERE id = ?", arguments: [id]) != nil else {
                throw StoreError.notFound(kind: "playlist", query: String(id))
            }
            return try Row.fetchAll(db, sql: Self.trackSelect.replacingOccurrences(of: "FROM track\n", with: ", e.position AS entry_position, e.added_at AS entry_added FROM track\n")
                             + " JOIN playlist_entry e ON e.track_id = track.id WHERE e.playlist_id = ? ORDER BY \(key), e.position",
                             arguments: [id]).enumerated().map { i, row in
                PlaylistEntry(position: sort.key == .manual && sort.order == .ascending ? i + 1 : Self.manualIndex(row, db: db, id: id),
                              track: Self.track(row), addedAt: Date(timeIntervalSince1970: row["entry_added"]))
            }
        }
    }

    /// The 1-based manual place of an entry shown in another order.
    private static func manualIndex(_ row: Row, db: Database, id: Int64) -> Int {
        let position: Int = row["entry_position"]
        return ((try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM playlist_entry WHERE playlist_id = ? AND position < ?",
                                   arguments: [id, position])) ?? 0) + 1
    }

    /// Adds tracks at 1-based `index` (default: the end).
    public func addToPlaylist(id: Int64, trackIDs: [Int64], at index: Int? = nil, now: Date = Date()) throws {
        if let unknown = try unknownTrackIDs(trackIDs).first { throw StoreError.trackNotFound(unknown) }
        try editEntries(id, now: now) { entries in
            let at = min(max(1, index ?? entries.count + 1), entries.count + 1) - 1
            entries.insert(contentsOf: trackIDs.map { (entryID: nil, trackID: $0) }, at: at)
        }
    }

    /// Removes the entries at 1-based `indexes`.
    public func removeFromPlaylist(id: Int64, at indexes: [Int], now: Date = Date()) throws {
        try editEntries(id, now: now) { entries in
            for index in indexes where !entries.indices.contains(index - 1) {
                throw StoreError.invalid("the playlist has \(entries.count) tracks; there is no track \(index)")
            }
            for index in Set(indexes).sorted(by: >) { entries.remove(at: index - 1) }
        }
    }

    /// Moves the entry at `from` to `to` (1-based).
    public func movePlaylistEntry(id: Int64, from: Int, to: Int, now: Date = Date()) throws {
        try editEntries(id, now: now) { entries in
            guard entries.indices.contains(from - 1), entries.indices.contains(to - 1) else {
                throw StoreError.invalid("the playlist has \(entries.count) tracks; move needs places 1–\(entries.count)")
            }
            entries.insert(entries.remove(at: from - 1), at: to - 1)
        }
    }

    /// Replaces a playlist's tracks (for imports that overwrite).
    public func setPlaylistTracks(id: Int64, trackIDs: [Int64], now: Date = Date()) throws {
        if let unknown = try unknownTrackIDs(trackIDs).first { throw StoreError.trackNotFound(unknown) }
        try editEntries(id, now: now) { entries in entries = trackIDs.map { (entryID: nil, trackID: $0) } }
    }

    /// Reads the entries in order, lets `edit` change the list, and writes positions 1…n back in one
    /// transaction (playlists are small, so renumbering is cheaper than sparse positions' bookkeeping).
    private func editEntries(_ id: Int64, now: Date,
                             _ edit: (inout [(entryID: Int64?, trackID: Int64)]) throws -> Void) throws {
        let time = now.timeIntervalSince1970
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM playlist WHERE id = ?", arguments: [id]) != nil else {
                throw StoreError.notFound(kind: "playlist", query: String(id))
            }
            var entries = try Row.fetchAll(db, sql: "SELECT id, track_id FROM playlist_entry WHERE playlist_id = ? ORDER BY position",
                                           arguments: [id]).map { (entryID: Optional<Int64>($0["id"]), trackID: $0["track_id"] as Int64) }
            let before = Set(entries.compactMap(\.entryID))
            try edit(&entries)
            let kept = Set(entries.compactMap(\.entryID))
            for gone in before.subtracting(kept) {
                try db.execute(sql: "DELETE FROM playlist_entry WHERE id = ?", arguments: [gone])
            }
            let update = try db.makeStatement(sql: "UPDATE playlist_entry SET position = ? WHERE id = ?")
            let insert = try db.makeStatement(sql: "INSERT INTO playlist_entry (playlist_id, track_id, position, added_at) VALUES (?, ?, ?, ?)")
            for (i, entry) in entries.enumerated() {
                if let entryID = entry.entryID { try update.execute(arguments: [i + 1, entryID]) } else {
                    try insert.execute(arguments: [id, entry.trackID, i + 1, time])
                }
            }
            try db.execute(sql: "UPDATE playlist SET updated_at = ? WHERE id = ?", arguments: [time, id])
        }
    }

    /// Marks the playlist as played from (its `last_played_at`) and as a recent item.
    public func markPlaylistPlayed(id: Int64, at now: Date = Date()) throws {
        try write { db in
            try db.execute(sql: "UPDATE playlist SET last_played_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
            try Self.touchRecent(.playlist, id, now.timeIntervalSince1970, db)
        }
    }

    static func playlistName(_ name: String) throws -> String {
        let clean = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !clean.isEmpty else { throw StoreError.invalid("a playlist needs a name") }
        guard clean.caseInsensitiveCompare(Playlist.favoritesName) != .orderedSame else {
            throw StoreError.invalid("'\(Playlist.favoritesName)' is the playlist of favorite tracks; choose another name")
        }
        return clean
    }
}

extension LibraryStore {
    /// Library tracks for file paths: the file's path, the path a copy was imported from, or any path an
    /// import found it at (so a playlist of the originals still finds copied files).
    public func trackIDs(forPaths paths: [String]) throws -> [String: Int64] {
        try read { db in
            var found: [String: Int64] = [:]
            let byPath = try db.makeStatement(sql: """
                SELECT track_id FROM file WHERE path = ?1
                UNION ALL SELECT track_id FROM file WHERE original_path = ?1
                UNION ALL SELECT track_id FROM import_record WHERE source_path = ?1 AND track_id IS NOT NULL
                LIMIT 1
                """)
            for path in Set(paths) {
                if let id = try Int64.fetchOne(byPath, arguments: [path]) { found[path] = id }
            }
            return found
        }
    }

    /// The library track whose path ends with `tail` ("Artist/Album/01 Song.flac", from a Windows playlist),
    /// when exactly one does.
    public func trackID(pathEndingWith tail: String) throws -> Int64? {
        guard !tail.isEmpty else { return nil }
        let pattern = "%/" + tail.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return try read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT track_id FROM file WHERE path LIKE ? ESCAPE '\\' LIMIT 2",
                                         arguments: [pattern])
            return ids.count == 1 ? ids.first : nil
        }
    }

    /// The library track with this artist (the track's or its album's) and title, compared with case, diacritics
    /// and letters such as ø folded, and, when `seconds` is known, a length within 3 seconds of it (the closest wins).
    /// What matches playlist entries whose paths do not exist here (a playlist exported from another library).
    public func trackID(artist: String, title: String, seconds: Int?) throws -> Int64? {
        let wantArtist = SearchFolding.fold(artist), wantTitle = SearchFolding.fold(title)
        return try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT track.id, COALESCE(o.title, track.title) AS title, COALESCE(o.artist, track.artist) AS artist,
                       artist.name AS album_artist, track.duration
                FROM track JOIN album ON album.id = track.album_id JOIN artist ON artist.id = album.artist_id
                LEFT JOIN track_override AS o ON o.track_id = track.id
                WHERE lower(COALESCE(o.title, track.title)) = lower(?) OR lower(track.title) = lower(?)
                """, arguments: [title, title])
            let candidates = rows.filter { row in
                SearchFolding.fold(row["title"]) == wantTitle
                    && (SearchFolding.fold(row["artist"]) == wantArtist || SearchFolding.fold(row["album_artist"]) == wantArtist)
            }
            guard let seconds else { return candidates.count == 1 ? candidates.first?["id"] : nil }
            let timed = candidates.map { ($0["id"] as Int64, abs(($0["duration"] as Double) - Double(seconds))) }
                .filter { $0.1 <= 3 }
            return timed.min { $0.1 < $1.1 }?.0
        }
    }
}
