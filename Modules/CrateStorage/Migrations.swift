import CrateDomain
import GRDB
import Synchronization

/// Versioned schema. Never edit a registered migration; add a new one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        // Set when a migration of this run builds the search index with today's `SearchIndex.create`: later migrations
        // that rebuild it (v8, v15, v16) would make exactly the same again, so they skip it. A new library thereby builds
        // its index once, not twice (the migrations were about half of what a first import spent before reading a file).
        // MigrationTests check the schema comes out the same in one run as in several.
        let indexBuilt = IndexBuilt()
        m.registerMigration("v1: artists, albums, tracks, files, scan failures") { db in
            try db.execute(sql: """
                CREATE TABLE artist (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE
                );
                CREATE TABLE album (
                    id INTEGER PRIMARY KEY,
                    identity TEXT NOT NULL UNIQUE,          -- see AlbumGrouping: mb:/tags:/folder:
                    title TEXT NOT NULL,
                    artist_id INTEGER NOT NULL REFERENCES artist(id),
                    date TEXT,
                    year INTEGER,
                    genre TEXT,
                    is_compilation INTEGER NOT NULL DEFAULT 0,
                    added_at REAL NOT NULL
                );
                CREATE INDEX album_artist ON album(artist_id);
                CREATE TABLE track (
                    id INTEGER PRIMARY KEY,
                    source TEXT NOT NULL,                   -- TrackRef: URI scheme ...
                    source_id TEXT NOT NULL,                -- ... and the source's own id
                    album_id INTEGER NOT NULL REFERENCES album(id),
                    artist_id INTEGER NOT NULL REFERENCES artist(id),
                    title TEXT NOT NULL,
                    artist TEXT NOT NULL,
                    tag_album_artist TEXT,
                    tag_album TEXT,
                    genre TEXT,
                    date TEXT,
                    track_number INTEGER,
                    track_total INTEGER,
                    disc_number INTEGER,
                    disc_total INTEGER,
                    musicbrainz_album_id TEXT,
                    codec TEXT NOT NULL,
                    sample_rate INTEGER NOT NULL,
                    channels INTEGER NOT NULL,
                    bits_per_sample INTEGER,
                    frames INTEGER,
                    duration REAL NOT NULL,
                    added_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    UNIQUE(source, source_id)
                );
                CREATE INDEX track_album ON track(album_id, disc_number, track_number);
                CREATE TABLE file (
                    track_id INTEGER PRIMARY KEY REFERENCES track(id) ON DELETE CASCADE,
                    path TEXT NOT NULL UNIQUE,
                    size INTEGER NOT NULL,
                    mtime REAL NOT NULL
                );
                CREATE TABLE scan_failure (
                    path TEXT PRIMARY KEY,
                    reason TEXT NOT NULL,
                    failed_at REAL NOT NULL
                );
                """)
        }
        m.registerMigration("v2: queue, history, player state, playback positions, missing flags") { db in
            try db.execute(sql: """
                -- Sparse positions: inserting or moving writes one row, whatever the queue's length.
                CREATE TABLE queue_entry (
                    id INTEGER PRIMARY KEY,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    position REAL NOT NULL,
                    album_lock INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX queue_position ON queue_entry(position);
                CREATE TABLE play_history (
                    id INTEGER PRIMARY KEY,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    played_at REAL NOT NULL
                );
                CREATE TABLE player_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    current_entry INTEGER,
                    elapsed REAL NOT NULL DEFAULT 0,
                    modes TEXT NOT NULL                     -- JSON of PlayerModes
                );
                CREATE TABLE track_position (
                    track_id INTEGER PRIMARY KEY REFERENCES track(id) ON DELETE CASCADE,
                    seconds REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                ALTER TABLE track ADD COLUMN missing_reason TEXT;
                ALTER TABLE track ADD COLUMN missing_detail TEXT;
                """)
        }
        m.registerMigration("v3: import modes, content hashes, import records, artwork, overrides, settings") { db in
            try db.execute(sql: """
                ALTER TABLE file ADD COLUMN import_mode TEXT NOT NULL DEFAULT 'reference';
                ALTER TABLE file ADD COLUMN original_path TEXT;     -- where a copy was imported from
                ALTER TABLE file ADD COLUMN content_hash TEXT;      -- ContentHash.partial: size + first and last 16 KiB
                CREATE INDEX file_content_hash ON file(content_hash);
                ALTER TABLE track ADD COLUMN artwork_hash TEXT;
                ALTER TABLE track ADD COLUMN artwork_checked INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE album ADD COLUMN artwork_hash TEXT;
                -- One row per picture content; the file is artwork/<2 hex>/<hash>.<jpg|png> under the data directory.
                CREATE TABLE artwork (
                    hash TEXT PRIMARY KEY,
                    mime TEXT NOT NULL,
                    bytes INTEGER NOT NULL,
                    origin TEXT NOT NULL,                       -- embedded | folder
                    created_at REAL NOT NULL
                );
                -- Edits of app-copied files: never written to the file; display prefers them, grouping ignores them.
                CREATE TABLE track_override (
                    track_id INTEGER PRIMARY KEY REFERENCES track(id) ON DELETE CASCADE,
                    title TEXT, artist TEXT, album TEXT, album_artist TEXT, genre TEXT, date TEXT,
                    track_number INTEGER, disc_number INTEGER,
                    updated_at REAL NOT NULL
                );
                -- Every file an import or rescan has dealt with, by the path it was found at: a rescan skips
                -- files whose size and mtime still match without opening them.
                CREATE TABLE import_record (
                    source_path TEXT PRIMARY KEY,
                    folder TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime REAL NOT NULL,
                    outcome TEXT NOT NULL,                      -- imported | duplicate | relinked
                    track_id INTEGER REFERENCES track(id) ON DELETE SET NULL,
                    mode TEXT NOT NULL,
                    imported_at REAL NOT NULL
                );
                CREATE INDEX import_record_folder ON import_record(folder);
                CREATE INDEX import_record_track ON import_record(track_id);
                -- Folders imported in reference mode: rescans walk them again.
                CREATE TABLE library_root (
                    path TEXT PRIMARY KEY,
                    added_at REAL NOT NULL
                );
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                ALTER TABLE scan_failure ADD COLUMN folder TEXT;
                ALTER TABLE scan_failure ADD COLUMN size INTEGER;
                ALTER TABLE scan_failure ADD COLUMN mtime REAL;
                CREATE INDEX scan_failure_folder ON scan_failure(folder);
                -- Libraries from before v3 were reference imports: give their files records so rescans skip them.
                INSERT INTO import_record (source_path, folder, size, mtime, outcome, track_id, mode, imported_at)
                    SELECT path, rtrim(rtrim(path, replace(path, '/', '')), '/'), size, mtime, 'imported', track_id,
                           'reference', strftime('%s', 'now')
                    FROM file;
                """)
        }
        m.registerMigration("v4: search index, lyrics, favorites and dislikes, playlists, recents, play counts, sort keys") { db in
            try db.execute(sql: """
                ALTER TABLE artist ADD COLUMN sort_name TEXT;                -- from sort tags (TSOP/TSO2, ARTISTSORT)
                ALTER TABLE artist ADD COLUMN sort_key TEXT NOT NULL DEFAULT '';  -- SortName.key: what lists sort by
                ALTER TABLE track_override ADD COLUMN artist_sort_key TEXT;
                ALTER TABLE track ADD COLUMN play_count INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE track ADD COLUMN last_played_at REAL;
                ALTER TABLE album ADD COLUMN play_count INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE album ADD COLUMN last_played_at REAL;
                -- Every finished play, for "top artists of the last 30 days" (history keeps only 100).
                CREATE TABLE play_log (
                    id INTEGER PRIMARY KEY,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    played_at REAL NOT NULL
                );
                CREATE INDEX play_log_time ON play_log(played_at);
                CREATE INDEX play_log_track ON play_log(track_id);
                CREATE INDEX track_artist ON track(artist_id);
                CREATE TABLE lyrics (
                    track_id INTEGER PRIMARY KEY REFERENCES track(id) ON DELETE CASCADE,
                    text TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE playlist (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    last_played_at REAL                          -- only when playback starts from the playlist
                );
                -- Manual order by position (renumbered on every edit: playlists are small); duplicates allowed.
                CREATE TABLE playlist_entry (
                    id INTEGER PRIMARY KEY,
                    playlist_id INTEGER NOT NULL REFERENCES playlist(id) ON DELETE CASCADE,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    added_at REAL NOT NULL
                );
                CREATE INDEX playlist_entry_order ON playlist_entry(playlist_id, position);
                CREATE INDEX playlist_entry_track ON playlist_entry(track_id);
                ALTER TABLE queue_entry ADD COLUMN playlist_id INTEGER REFERENCES playlist(id) ON DELETE SET NULL;
                -- One opinion per item, so like and dislike of an album exclude each other by construction.
                CREATE TABLE opinion (
                    kind TEXT NOT NULL,                          -- track | album | artist | playlist
                    item_id INTEGER NOT NULL,
                    value TEXT NOT NULL CHECK (value IN ('favorite', 'dislike')),
                    created_at REAL NOT NULL,
                    PRIMARY KEY (kind, item_id)
                ) WITHOUT ROWID;
                CREATE INDEX opinion_value ON opinion(kind, value, created_at);
                CREATE TABLE recent_item (
                    kind TEXT NOT NULL,                          -- album | playlist
                    item_id INTEGER NOT NULL,
                    played_at REAL NOT NULL,
                    PRIMARY KEY (kind, item_id)
                ) WITHOUT ROWID;
                CREATE INDEX recent_item_time ON recent_item(played_at);
                -- Opinions and recents name items of several tables, so they go with their item by trigger.
                CREATE TRIGGER track_gone AFTER DELETE ON track BEGIN
                    DELETE FROM opinion WHERE kind = 'track' AND item_id = old.id;
                END;
                CREATE TRIGGER album_gone AFTER DELETE ON album BEGIN
                    DELETE FROM opinion WHERE kind = 'album' AND item_id = old.id;
                    DELETE FROM recent_item WHERE kind = 'album' AND item_id = old.id;
                END;
                CREATE TRIGGER artist_gone AFTER DELETE ON artist BEGIN
                    DELETE FROM opinion WHERE kind = 'artist' AND item_id = old.id;
                END;
                CREATE TRIGGER playlist_gone AFTER DELETE ON playlist BEGIN
                    DELETE FROM opinion WHERE kind = 'playlist' AND item_id = old.id;
                    DELETE FROM recent_item WHERE kind = 'playlist' AND item_id = old.id;
                END;
                """)
            try SearchIndex.create(db)
            indexBuilt.value.withLock { $0 = true }
            // Sort keys for artists imported before v4 (no sort tags known yet: articles are ignored).
            let artists = try Row.fetchAll(db, sql: "SELECT id, name FROM artist")
            for row in artists {
                try db.execute(sql: "UPDATE artist SET sort_key = ? WHERE id = ?",
                               arguments: [SortName.key(row["name"]), row["id"] as Int64])
            }
        }
        m.registerMigration("v5: opinions of catalog albums") { db in
            // Catalog albums have no row in `album`: a like or dislike keeps what the feeds and the favorites
            // list need to show the album again without asking the catalog (ADR-118).
            try db.execute(sql: """
                CREATE TABLE catalog_opinion (
                    source TEXT NOT NULL,                        -- the album's source scheme (applemusic)
                    external_id TEXT NOT NULL,
                    value TEXT NOT NULL CHECK (value IN ('favorite', 'dislike')),
                    created_at REAL NOT NULL,
                    album_json TEXT NOT NULL,                    -- the Album as the catalog gave it
                    PRIMARY KEY (source, external_id)
                ) WITHOUT ROWID;
                CREATE INDEX catalog_opinion_value ON catalog_opinion(value, created_at);
                """)
        }
        m.registerMigration("v6: stations (saved stream URLs)") { db in
            try db.execute(sql: """
                CREATE TABLE station (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    url TEXT NOT NULL,
                    artwork_url TEXT,
                    track_id INTEGER NOT NULL UNIQUE REFERENCES track(id) ON DELETE CASCADE,  -- the stream's track
                    added_at REAL NOT NULL
                );
                """)
        }
        m.registerMigration("v7: artwork colours") { db in
            // The two colours of the player's gradient (ADR-121), "#rrggbb #rrggbb"; NULL until computed.
            try db.execute(sql: "ALTER TABLE artwork ADD COLUMN colors TEXT")
        }
        m.registerMigration("v8: search and sort fold ø, ł, ı, ß, đ, æ, œ, þ") { db in
            // The index stores the plain spelling of letters Unicode does not decompose (SearchFolding): built again.
            if !indexBuilt.value.withLock({ $0 }) {
                try SearchIndex.drop(db)
                try SearchIndex.create(db)
                indexBuilt.value.withLock { $0 = true }
            }
            // Sort keys of names with such letters ("Øystein" sorted after "Z").
            for row in try Row.fetchAll(db, sql: "SELECT id, name, sort_name FROM artist") {
                let name: String = row["name"]
                guard SearchFolding.plain(name) != name || (row["sort_name"] as String?).map({ SearchFolding.plain($0) != $0 }) == true else { continue }
                try db.execute(sql: "UPDATE artist SET sort_key = ? WHERE id = ?",
                               arguments: [SortName.key(name, sortTag: row["sort_name"]), row["id"] as Int64])
            }
        }
        m.registerMigration("v9: every value of a multi-valued genre tag") { db in
            // Tags were read keeping the first genre value only: files with a genre are read again at the next
            // rescan (the daemon's launch rescan), which stores every value and gives albums the union.
            try db.execute(sql: "UPDATE file SET mtime = -1 WHERE track_id IN (SELECT id FROM track WHERE genre IS NOT NULL)")
        }
        m.registerMigration("v10: catalog opinions waiting to be sent") { db in
            // A like or dislike made without catalog credentials (or whose writes failed) is kept here and sent
            // once credentials exist.
            try db.execute(sql: "ALTER TABLE catalog_opinion ADD COLUMN unsent INTEGER NOT NULL DEFAULT 0")
        }
        m.registerMigration("v11: loudness: ReplayGain tags, scanned track and album loudness") { db in
            try db.execute(sql: """
                -- From the file's tags, in ReplayGain 2.0 terms (dB towards -18 LUFS; Opus R128 gains converted; peaks
                -- linear); NULL when the file has none.
                ALTER TABLE track ADD COLUMN rg_track_gain REAL;
                ALTER TABLE track ADD COLUMN rg_track_peak REAL;
                ALTER TABLE track ADD COLUMN rg_album_gain REAL;
                ALTER TABLE track ADD COLUMN rg_album_peak REAL;
                -- What `crate loudness scan` measured (EBU R128). A row holds for the file stamp it was measured at:
                -- once the file's size or mtime differ, it is stale (and is measured again by the next scan).
                CREATE TABLE track_loudness (
                    track_id INTEGER PRIMARY KEY REFERENCES track(id) ON DELETE CASCADE,
                    integrated REAL,                            -- LUFS; NULL for silence (all below -70 LUFS)
                    true_peak REAL NOT NULL,                    -- linear, highest channel
                    sample_peak REAL NOT NULL,
                    seconds REAL NOT NULL,
                    size INTEGER NOT NULL,                      -- the file's stamp when measured
                    mtime REAL NOT NULL,
                    measured_at REAL NOT NULL
                );
                -- An album measured as a whole (its tracks' meters together: the same as measuring them end to end).
                -- It holds while the album has `tracks` tracks, each with a current row above no newer than this one.
                CREATE TABLE album_loudness (
                    album_id INTEGER PRIMARY KEY REFERENCES album(id) ON DELETE CASCADE,
                    integrated REAL,
                    true_peak REAL NOT NULL,
                    sample_peak REAL NOT NULL,
                    seconds REAL NOT NULL,
                    tracks INTEGER NOT NULL,
                    measured_at REAL NOT NULL
                );
                """)
            // Tags were read without their gains: files imported by reference are read again at the next rescan (the
            // daemon's launch rescan walks their folders and compares the import records' stamps), which stores them.
            // Copies in Crate's own folder are not walked by rescans: `crate loudness scan` measures them instead.
            try db.execute(sql: "UPDATE import_record SET mtime = -1 WHERE mode = 'reference' AND track_id IS NOT NULL")
        }
        m.registerMigration("v12: disc subtitles") { db in
            // The disc's own title on a multi-disc album (Vorbis DISCSUBTITLE, ID3 TSST); NULL when the file has none.
            try db.execute(sql: "ALTER TABLE track ADD COLUMN disc_subtitle TEXT")
            // Tags were read without it: as in v11, reference imports are read again at the next rescan to store it
            // (copies in Crate's own folder are not walked by rescans and get it when imported again).
            try db.execute(sql: "UPDATE import_record SET mtime = -1 WHERE mode = 'reference' AND track_id IS NOT NULL")
        }
        m.registerMigration("v13: accounts for the Subsonic API, and each one's stars, ratings and plays") { db in
            try db.execute(sql: """
                -- The people of a household. The owner's stars and plays are Crate's own (the opinion table, play
                -- counts and history): the web page, the CLI, MPD and MPRIS act as the owner. The password is kept
                -- encrypted (AES-GCM, the key in the data folder, 0600) because Subsonic's token sign-in needs it; the
                -- API key only as its SHA-256.
                CREATE TABLE account (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    is_admin INTEGER NOT NULL DEFAULT 0,
                    is_owner INTEGER NOT NULL DEFAULT 0,
                    jukebox INTEGER NOT NULL DEFAULT 0,
                    password BLOB NOT NULL,
                    api_key_hash TEXT UNIQUE,
                    created_at REAL NOT NULL
                );
                CREATE UNIQUE INDEX account_one_owner ON account(is_owner) WHERE is_owner = 1;
                -- Stars and ratings of everyone but the owner (whose stars are the opinion table's favorites).
                CREATE TABLE account_star (
                    account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,                          -- track | album | artist
                    item_id INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (account_id, kind, item_id)
                ) WITHOUT ROWID;
                CREATE TABLE account_rating (
                    account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    item_id INTEGER NOT NULL,
                    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
                    PRIMARY KEY (account_id, kind, item_id)
                ) WITHOUT ROWID;
                CREATE TABLE account_play (
                    account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    play_count INTEGER NOT NULL,
                    last_played_at REAL NOT NULL,
                    PRIMARY KEY (account_id, track_id)
                ) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v14: playlists and play queues of the household's accounts") { db in
            try db.execute(sql: """
                -- Crate's own playlists are the owner's: private unless made public (then every account sees them).
                ALTER TABLE playlist ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE playlist ADD COLUMN comment TEXT;
                -- Everyone else's playlists, kept apart: names are unique per account, and Crate's own front ends
                -- (the web page, MPD) list the owner's alone.
                CREATE TABLE account_playlist (
                    id INTEGER PRIMARY KEY,
                    account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    comment TEXT,
                    public INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE INDEX account_playlist_owner ON account_playlist(account_id);
                CREATE TABLE account_playlist_entry (
                    playlist_id INTEGER NOT NULL REFERENCES account_playlist(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    track_id INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                    PRIMARY KEY (playlist_id, position)
                ) WITHOUT ROWID;
                -- Where each account's app left off (Subsonic's savePlayQueue), to pick up on another device.
                CREATE TABLE account_play_queue (
                    account_id INTEGER PRIMARY KEY REFERENCES account(id) ON DELETE CASCADE,
                    track_ids TEXT NOT NULL,                     -- a JSON array, in order
                    current INTEGER,
                    position_ms INTEGER NOT NULL DEFAULT 0,
                    changed_at REAL NOT NULL,
                    changed_by TEXT NOT NULL DEFAULT ''
                );
                """)
        }
        m.registerMigration("v15: an import batch indexes its new rows once, at its end") { db in
            // The insert triggers of artists, albums and tracks pause while `search_index_paused` has its row
            // (SearchIndex: FTS5 wrote a segment per row of an import).
            guard !indexBuilt.value.withLock({ $0 }) else { return }
            try db.execute(sql: SearchIndex.pausedTable)
            for table in ["artist", "album", "track"] { try db.execute(sql: "DROP TRIGGER IF EXISTS \(table)_fts_insert") }
            try db.execute(sql: SearchIndex.pausableInsertTriggers)
        }
        m.registerMigration("v16: the search index's rows as views, which its triggers read") { db in
            // Each trigger spelled out the indexed form of its row (24 of the schema's 36 KB), and every connection
            // parses the schema when it opens: the triggers now select from one view per index. Same index content.
            guard !indexBuilt.value.withLock({ $0 }) else { return }
            try SearchIndex.remakeTriggers(db)
        }
        return m
    }

    /// Whether this run of the migrations built the search index (see `migrator`).
    private final class IndexBuilt: Sendable {
        let value = Mutex(false)
    }
}
