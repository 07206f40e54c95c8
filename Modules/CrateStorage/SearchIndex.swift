import CrateDomain
import GRDB
import Foundation

/// The full-text index: FTS5 tables (`unicode61 remove_diacritics 2`) for artists, albums, tracks,
/// playlists and lyrics, kept in step with their tables by triggers, so every writer keeps it right.
///
/// Punctuation: the tokenizer splits "R.E.M." into r, e, m. Each indexed name therefore also carries a
/// compact form without `. / - ' ’ & +` ("REM", "ACDC", "aha"), and `SearchExpression` asks for either.
///
/// An import batch indexes its new artists, albums and tracks once, at its end (`pauseInserts`, `indexNewRows`), not
/// row by row: SQLite (3.40) opens a savepoint for every statement that writes through an FTS5 trigger, and FTS5
/// writes its pending terms out as a new segment at each savepoint, so a row-by-row import wrote a segment per row
/// and merged them (0.5 s of a 1.7 s import of 3,000 files). While `search_index_paused` holds its row, the insert
/// triggers of those three tables do nothing; the row exists only inside the batch's transaction.
enum SearchIndex {
    /// Prefix indexes of 2 and 3 characters: short prefixes (what people type first) then read one
    /// index entry instead of every token that starts with them (p99 of a 1-word query fell ~10×).
    static let tokenizer = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'"

    /// `expr` with the letters Unicode does not decompose spelled plainly (ø → o: `SearchFolding`), followed by its
    /// compact form when that differs. The two are built side by side, not one inside the other: SQLite's parser
    /// allows only so many nested calls in a trigger.
    ///
    /// `guarded`: each chain of `replace` runs only when it can change something, the folding when `expr` is not all
    /// ASCII (its length in characters differs from its length in bytes), the compact form when a mark occurs. Most
    /// names are plain ASCII without marks, and the 23 `replace` calls per column (each copying the string) were most
    /// of the cost of indexing an import batch (Benchmarks/README.md); the result is the same. Only for statements
    /// run as they are made (an import batch's indexing): the triggers keep the shorter text, since every connection
    /// parses the whole schema when it opens, and the guards made that a third slower.
    static func searchable(_ expr: String, guarded: Bool = false) -> String {
        let marks = [".", "/", "-", "''", "’", "&", "+"]
        var compact = "(\(expr))"
        for mark in marks { compact = "replace(\(compact), '\(mark)', '')" }
        guard guarded else {
            return "(\(SearchFolding.sql("(\(expr))")) || CASE WHEN \(compact) <> (\(expr)) THEN ' ' || \(compact) ELSE '' END)"
        }
        let hasMark = marks.map { "instr(\(expr), '\($0)')" }.joined(separator: " OR ")
        return "(CASE WHEN length(\(expr)) = length(CAST(\(expr) AS BLOB)) THEN (\(expr)) ELSE \(SearchFolding.sql("(\(expr))")) END"
            + " || CASE WHEN (\(hasMark)) AND \(compact) <> (\(expr)) THEN ' ' || \(compact) ELSE '' END)"
    }

    /// The track row as indexed: display fields, so overrides are found.
    static func trackRow(_ id: String, guarded: Bool = false) -> String {
        """
        INSERT INTO track_fts (rowid, title, artist, album, source)
        SELECT t.id, \(searchable("COALESCE(o.title, t.title)", guarded: guarded)),
               \(searchable("COALESCE(o.artist, t.artist)", guarded: guarded)),
               \(searchable("COALESCE(o.album, al.title)", guarded: guarded)), t.source
        FROM track t JOIN album al ON al.id = t.album_id LEFT JOIN track_override o ON o.track_id = t.id
        WHERE t.id = \(id);
        """
    }

    static func albumRow(_ id: String, guarded: Bool = false) -> String {
        """
        INSERT INTO album_fts (rowid, title, artist)
        SELECT al.id, \(searchable("al.title", guarded: guarded)), \(searchable("ar.name", guarded: guarded))
        FROM album al JOIN artist ar ON ar.id = al.artist_id
        WHERE al.id = \(id);
        """
    }

    static let pausedTable = "CREATE TABLE IF NOT EXISTS search_index_paused (one INTEGER PRIMARY KEY CHECK (one = 1))"
    static let unlessPaused = "WHEN NOT EXISTS (SELECT 1 FROM search_index_paused)"

    /// The insert triggers an import batch pauses: artists, albums and tracks.
    static let pausableInsertTriggers = """
        \(nameInsertTrigger("artist", when: unlessPaused))
        CREATE TRIGGER album_fts_insert AFTER INSERT ON album \(unlessPaused) BEGIN \(albumRow("new.id")) END;
        CREATE TRIGGER track_fts_insert AFTER INSERT ON track \(unlessPaused) BEGIN \(trackRow("new.id")) END;
        """

    /// The highest artist, album and track ids when a batch began: its new rows are the ones above, since SQLite gives a
    /// new row the highest rowid plus one and a batch deletes rows (emptied albums) only after its inserts.
    struct BatchStart: Sendable {
        let artist: Int64, album: Int64, track: Int64
    }

    /// Pauses the pausable insert triggers for the rest of the transaction (until `indexNewRows`).
    static func pauseInserts(_ db: Database) throws -> BatchStart {
        try db.execute(sql: "INSERT INTO search_index_paused (one) VALUES (1)")
        func top(_ table: String) throws -> Int64 { try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM \(table)") ?? 0 }
        return BatchStart(artist: try top("artist"), album: try top("album"), track: try top("track"))
    }

    /// Indexes the rows added since `start` in one statement per table, and lets the triggers run again. A new row an
    /// update trigger indexed meanwhile (a track whose album changed in the same batch) is indexed anew, once.
    static func indexNewRows(since start: BatchStart, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM search_index_paused")
        try db.execute(sql: "DELETE FROM artist_fts WHERE rowid > ?", arguments: [start.artist])
        try db.execute(sql: "INSERT INTO artist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM artist WHERE id > ?",
                       arguments: [start.artist])
        try db.execute(sql: "DELETE FROM album_fts WHERE rowid > ?", arguments: [start.album])
        try db.execute(sql: albumRow("al.id", guarded: true).replacingOccurrences(of: "WHERE al.id = al.id", with: "WHERE al.id > ?"),
                       arguments: [start.album])
        try db.execute(sql: "DELETE FROM track_fts WHERE rowid > ?", arguments: [start.track])
        try db.execute(sql: trackRow("t.id", guarded: true).replacingOccurrences(of: "WHERE t.id = t.id", with: "WHERE t.id > ?"),
                       arguments: [start.track])
    }

    static func nameInsertTrigger(_ table: String, when: String = "") -> String {
        """
        CREATE TRIGGER \(table)_fts_insert AFTER INSERT ON \(table) \(when) BEGIN
            INSERT INTO \(table)_fts (rowid, name) VALUES (new.id, \(searchable("new.name")));
        END;
        """
    }

    /// Rename and delete triggers of a table indexed by its `name` alone (artists, playlists).
    static func nameTriggers(_ table: String) -> String {
        """
        CREATE TRIGGER \(table)_fts_update AFTER UPDATE OF name ON \(table) BEGIN
            DELETE FROM \(table)_fts WHERE rowid = old.id;
            INSERT INTO \(table)_fts (rowid, name) VALUES (new.id, \(searchable("new.name")));
        END;
        CREATE TRIGGER \(table)_fts_delete AFTER DELETE ON \(table) BEGIN
            DELETE FROM \(table)_fts WHERE rowid = old.id;
        END;
        """
    }

    /// Every index table and trigger, dropped (to build them again with `create` when the indexed form changes).
    static func drop(_ db: Database) throws {
        for table in ["artist", "album", "track", "override", "playlist", "lyrics"] {
            for event in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER IF EXISTS \(table)_fts_\(event)") }
        }
        for table in ["artist", "album", "track", "playlist", "lyrics"] { try db.execute(sql: "DROP TABLE IF EXISTS \(table)_fts") }
    }

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE artist_fts USING fts5(name, \(tokenizer));
            CREATE VIRTUAL TABLE album_fts USING fts5(title, artist, \(tokenizer));
            CREATE VIRTUAL TABLE track_fts USING fts5(title, artist, album, source UNINDEXED, \(tokenizer));
            CREATE VIRTUAL TABLE playlist_fts USING fts5(name, \(tokenizer));
            CREATE VIRTUAL TABLE lyrics_fts USING fts5(text, \(tokenizer));

            \(pausedTable);
            \(pausableInsertTriggers)
            \(nameTriggers("artist"))

            CREATE TRIGGER album_fts_update AFTER UPDATE OF title, artist_id ON album BEGIN
                DELETE FROM album_fts WHERE rowid = old.id;
                \(albumRow("new.id"))
                DELETE FROM track_fts WHERE rowid IN (SELECT id FROM track WHERE album_id = new.id);
                \(trackRow("t.id").replacingOccurrences(of: "WHERE t.id = t.id", with: "WHERE t.album_id = new.id"))
            END;
            CREATE TRIGGER album_fts_delete AFTER DELETE ON album BEGIN
                DELETE FROM album_fts WHERE rowid = old.id;
            END;

            CREATE TRIGGER track_fts_update AFTER UPDATE OF title, artist, album_id ON track BEGIN
                DELETE FROM track_fts WHERE rowid = old.id;
                \(trackRow("new.id"))
            END;
            CREATE TRIGGER track_fts_delete AFTER DELETE ON track BEGIN
                DELETE FROM track_fts WHERE rowid = old.id;
            END;
            CREATE TRIGGER override_fts_insert AFTER INSERT ON track_override BEGIN
                DELETE FROM track_fts WHERE rowid = new.track_id;
                \(trackRow("new.track_id"))
            END;
            CREATE TRIGGER override_fts_update AFTER UPDATE ON track_override BEGIN
                DELETE FROM track_fts WHERE rowid = new.track_id;
                \(trackRow("new.track_id"))
            END;
            CREATE TRIGGER override_fts_delete AFTER DELETE ON track_override BEGIN
                DELETE FROM track_fts WHERE rowid = old.track_id;
                \(trackRow("old.track_id"))
            END;

            \(nameInsertTrigger("playlist"))
            \(nameTriggers("playlist"))

            CREATE TRIGGER lyrics_fts_insert AFTER INSERT ON lyrics BEGIN
                INSERT INTO lyrics_fts (rowid, text) VALUES (new.track_id, \(SearchFolding.sql("new.text")));
            END;
            CREATE TRIGGER lyrics_fts_update AFTER UPDATE ON lyrics BEGIN
                DELETE FROM lyrics_fts WHERE rowid = old.track_id;
                INSERT INTO lyrics_fts (rowid, text) VALUES (new.track_id, \(SearchFolding.sql("new.text")));
            END;
            CREATE TRIGGER lyrics_fts_delete AFTER DELETE ON lyrics BEGIN
                DELETE FROM lyrics_fts WHERE rowid = old.track_id;
            END;

            INSERT INTO artist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM artist;
            INSERT INTO playlist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM playlist;
            INSERT INTO lyrics_fts (rowid, text) SELECT track_id, \(SearchFolding.sql("text")) FROM lyrics;
            \(albumRow("al.id", guarded: true).replacingOccurrences(of: "WHERE al.id = al.id", with: ""))
            \(trackRow("t.id", guarded: true).replacingOccurrences(of: "WHERE t.id = t.id", with: ""))
            """)
    }

    /// Brings the index in line with its tables: entries of gone items out, missing items in.
    /// Returns how many entries changed, by index.
    static func repair(_ db: Database) throws -> [String: Int] {
        var changed: [String: Int] = [:]
        func run(_ name: String, _ sql: String) throws {
            try db.execute(sql: sql)
            if db.changesCount > 0 { changed["search index (\(name))", default: 0] += db.changesCount }
        }
        for (fts, table, key) in [("artist_fts", "artist", "id"), ("album_fts", "album", "id"), ("track_fts", "track", "id"),
                                  ("playlist_fts", "playlist", "id"), ("lyrics_fts", "lyrics", "track_id")] {
            try run(table, "DELETE FROM \(fts) WHERE rowid NOT IN (SELECT \(key) FROM \(table))")
        }
        try run("artist", "INSERT INTO artist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM artist WHERE id NOT IN (SELECT rowid FROM artist_fts)")
        try run("album", albumRow("al.id", guarded: true).replacingOccurrences(of: "WHERE al.id = al.id", with: "WHERE al.id NOT IN (SELECT rowid FROM album_fts)"))
        try run("track", trackRow("t.id", guarded: true).replacingOccurrences(of: "WHERE t.id = t.id", with: "WHERE t.id NOT IN (SELECT rowid FROM track_fts)"))
        try run("playlist", "INSERT INTO playlist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM playlist WHERE id NOT IN (SELECT rowid FROM playlist_fts)")
        try run("lyrics", "INSERT INTO lyrics_fts (rowid, text) SELECT track_id, \(SearchFolding.sql("text")) FROM lyrics WHERE track_id NOT IN (SELECT rowid FROM lyrics_fts)")
        return changed
    }
}
