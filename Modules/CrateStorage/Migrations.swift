import GRDB

/// Versioned schema. Never edit a registered migration; add a new one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
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
        return m
    }
}
