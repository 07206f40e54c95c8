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
    /// allows only so many nested calls in one expression.
    ///
    /// `guarded`: each chain of `replace` runs only when it can change something, the folding when `expr` is not all
    /// ASCII (its length in characters differs from its length in bytes), the compact form when a mark occurs. Most
    /// names are plain ASCII without marks, and the 23 `replace` calls per column (each copying the string) were most
    /// of the cost of indexing an import batch (Benchmarks/README.md); the result is the same. Only for statements
    /// run as they are made (an import batch's indexing): the views keep the shorter text, since every connection
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

    /// The track rows as indexed (display fields, so overrides are found), `condition` on `t`, in the guarded form:
    /// for the statements that index many rows at once.
    static func trackRows(where condition: String) -> String {
        """
        INSERT INTO track_fts (rowid, title, artist, album, source)
        SELECT t.id, \(searchable("COALESCE(o.title, t.title)", guarded: true)),
               \(searchable("COALESCE(o.artist, t.artist)", guarded: true)),
               \(searchable("COALESCE(o.album, al.title)", guarded: true)), t.source
        FROM track t JOIN album al ON al.id = t.album_id LEFT JOIN track_override o ON o.track_id = t.id
        \(condition);
        """
    }

    static func albumRows(where condition: String) -> String {
        """
        INSERT INTO album_fts (rowid, title, artist)
        SELECT al.id, \(searchable("al.title", guarded: true)), \(searchable("ar.name", guarded: true))
        FROM album al JOIN artist ar ON ar.id = al.artist_id
        \(condition);
        """
    }

    /// Each index's row as a view, which the triggers select from: the indexed form is written once per table, not
    /// once in each of the 22 triggers. Every connection parses the schema when it opens, and the triggers' own copies
    /// were 24 of its 36 KB (an open took 4.1 ms, 1.2 without them; Benchmarks/README.md).
    static let views = """
        CREATE VIEW artist_fts_row AS SELECT id, \(searchable("name")) AS name FROM artist;
        CREATE VIEW playlist_fts_row AS SELECT id, \(searchable("name")) AS name FROM playlist;
        CREATE VIEW album_fts_row AS
            SELECT al.id AS id, \(searchable("al.title")) AS title, \(searchable("ar.name")) AS artist
            FROM album al JOIN artist ar ON ar.id = al.artist_id;
        CREATE VIEW track_fts_row AS
            SELECT t.id AS id, t.album_id AS album_id, \(searchable("COALESCE(o.title, t.title)")) AS title,
                   \(searchable("COALESCE(o.artist, t.artist)")) AS artist, \(searchable("COALESCE(o.album, al.title)")) AS album,
                   t.source AS source
            FROM track t JOIN album al ON al.id = t.album_id LEFT JOIN track_override o ON o.track_id = t.id;
        CREATE VIEW lyrics_fts_row AS SELECT track_id, \(SearchFolding.sql("text")) AS text FROM lyrics;
        """

    /// A trigger's statement: the rows of `table`'s view that `condition` picks, into its index.
    static func fromView(_ table: String, where condition: String) -> String {
        switch table {
        case "track":
            "INSERT INTO track_fts (rowid, title, artist, album, source) SELECT id, title, artist, album, source FROM track_fts_row WHERE \(condition);"
        case "album":
            "INSERT INTO album_fts (rowid, title, artist) SELECT id, title, artist FROM album_fts_row WHERE \(condition);"
        case "lyrics":
            "INSERT INTO lyrics_fts (rowid, text) SELECT track_id, text FROM lyrics_fts_row WHERE \(condition);"
        default:
            "INSERT INTO \(table)_fts (rowid, name) SELECT id, name FROM \(table)_fts_row WHERE \(condition);"
        }
    }

    static let pausedTable = "CREATE TABLE IF NOT EXISTS search_index_paused (one INTEGER PRIMARY KEY CHECK (one = 1))"
    static let unlessPaused = "WHEN NOT EXISTS (SELECT 1 FROM search_index_paused)"

    /// The insert triggers an import batch pauses: artists, albums and tracks.
    static let pausableInsertTriggers = """
        \(nameInsertTrigger("artist", when: unlessPaused))
        CREATE TRIGGER album_fts_insert AFTER INSERT ON album \(unlessPaused) BEGIN \(fromView("album", where: "id = new.id")) END;
        CREATE TRIGGER track_fts_insert AFTER INSERT ON track \(unlessPaused) BEGIN \(fromView("track", where: "id = new.id")) END;
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
        try db.execute(sql: albumRows(where: "WHERE al.id > ?"), arguments: [start.album])
        try db.execute(sql: "DELETE FROM track_fts WHERE rowid > ?", arguments: [start.track])
        try db.execute(sql: trackRows(where: "WHERE t.id > ?"), arguments: [start.track])
    }

    static func nameInsertTrigger(_ table: String, when: String = "") -> String {
        """
        CREATE TRIGGER \(table)_fts_insert AFTER INSERT ON \(table) \(when) BEGIN
            \(fromView(table, where: "id = new.id"))
        END;
        """
    }

    /// Rename and delete triggers of a table indexed by its `name` alone (artists, playlists).
    static func nameTriggers(_ table: String) -> String {
        """
        CREATE TRIGGER \(table)_fts_update AFTER UPDATE OF name ON \(table) BEGIN
            DELETE FROM \(table)_fts WHERE rowid = old.id;
            \(fromView(table, where: "id = new.id"))
        END;
        CREATE TRIGGER \(table)_fts_delete AFTER DELETE ON \(table) BEGIN
            DELETE FROM \(table)_fts WHERE rowid = old.id;
        END;
        """
    }

    /// Every index table, view and trigger, dropped (to build them again with `create` when the indexed form changes).
    static func drop(_ db: Database) throws {
        try dropTriggersAndViews(db)
        for table in indexed { try db.execute(sql: "DROP TABLE IF EXISTS \(table)_fts") }
    }

    private static let indexed = ["artist", "album", "track", "playlist", "lyrics"]

    private static func dropTriggersAndViews(_ db: Database) throws {
        for table in indexed + ["override"] {
            for event in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER IF EXISTS \(table)_fts_\(event)") }
        }
        for table in indexed { try db.execute(sql: "DROP VIEW IF EXISTS \(table)_fts_row") }
    }

    /// The views and triggers made again, the index tables and their rows left as they are (v16 of the migrations:
    /// the triggers' indexed form moved into the views, the result unchanged).
    static func remakeTriggers(_ db: Database) throws {
        try dropTriggersAndViews(db)
        try db.execute(sql: views + triggers)
    }

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE artist_fts USING fts5(name, \(tokenizer));
            CREATE VIRTUAL TABLE album_fts USING fts5(title, artist, \(tokenizer));
            CREATE VIRTUAL TABLE track_fts USING fts5(title, artist, album, source UNINDEXED, \(tokenizer));
            CREATE VIRTUAL TABLE playlist_fts USING fts5(name, \(tokenizer));
            CREATE VIRTUAL TABLE lyrics_fts USING fts5(text, \(tokenizer));
            \(pausedTable);
            \(views)
            \(triggers)
            INSERT INTO artist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM artist;
            INSERT INTO playlist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM playlist;
            INSERT INTO lyrics_fts (rowid, text) SELECT track_id, \(SearchFolding.sql("text")) FROM lyrics;
            \(albumRows(where: ""))
            \(trackRows(where: ""))
            """)
    }

    /// Every trigger that keeps the index in step with its tables (their rows come from `views`).
    static let triggers = """
        \(pausableInsertTriggers)
        \(nameTriggers("artist"))

        CREATE TRIGGER album_fts_update AFTER UPDATE OF title, artist_id ON album BEGIN
            DELETE FROM album_fts WHERE rowid = old.id;
            \(fromView("album", where: "id = new.id"))
            DELETE FROM track_fts WHERE rowid IN (SELECT id FROM track WHERE album_id = new.id);
            \(fromView("track", where: "album_id = new.id"))
        END;
        CREATE TRIGGER album_fts_delete AFTER DELETE ON album BEGIN
            DELETE FROM album_fts WHERE rowid = old.id;
        END;

        CREATE TRIGGER track_fts_update AFTER UPDATE OF title, artist, album_id ON track BEGIN
            DELETE FROM track_fts WHERE rowid = old.id;
            \(fromView("track", where: "id = new.id"))
        END;
        CREATE TRIGGER track_fts_delete AFTER DELETE ON track BEGIN
            DELETE FROM track_fts WHERE rowid = old.id;
        END;
        CREATE TRIGGER override_fts_insert AFTER INSERT ON track_override BEGIN
            DELETE FROM track_fts WHERE rowid = new.track_id;
            \(fromView("track", where: "id = new.track_id"))
        END;
        CREATE TRIGGER override_fts_update AFTER UPDATE ON track_override BEGIN
            DELETE FROM track_fts WHERE rowid = new.track_id;
            \(fromView("track", where: "id = new.track_id"))
        END;
        CREATE TRIGGER override_fts_delete AFTER DELETE ON track_override BEGIN
            DELETE FROM track_fts WHERE rowid = old.track_id;
            \(fromView("track", where: "id = old.track_id"))
        END;

        \(nameInsertTrigger("playlist"))
        \(nameTriggers("playlist"))

        CREATE TRIGGER lyrics_fts_insert AFTER INSERT ON lyrics BEGIN
            \(fromView("lyrics", where: "track_id = new.track_id"))
        END;
        CREATE TRIGGER lyrics_fts_update AFTER UPDATE ON lyrics BEGIN
            DELETE FROM lyrics_fts WHERE rowid = old.track_id;
            \(fromView("lyrics", where: "track_id = new.track_id"))
        END;
        CREATE TRIGGER lyrics_fts_delete AFTER DELETE ON lyrics BEGIN
            DELETE FROM lyrics_fts WHERE rowid = old.track_id;
        END;
        """

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
        try run("album", albumRows(where: "WHERE al.id NOT IN (SELECT rowid FROM album_fts)"))
        try run("track", trackRows(where: "WHERE t.id NOT IN (SELECT rowid FROM track_fts)"))
        try run("playlist", "INSERT INTO playlist_fts (rowid, name) SELECT id, \(searchable("name", guarded: true)) FROM playlist WHERE id NOT IN (SELECT rowid FROM playlist_fts)")
        try run("lyrics", "INSERT INTO lyrics_fts (rowid, text) SELECT track_id, \(SearchFolding.sql("text")) FROM lyrics WHERE track_id NOT IN (SELECT rowid FROM lyrics_fts)")
        return changed
    }
}
