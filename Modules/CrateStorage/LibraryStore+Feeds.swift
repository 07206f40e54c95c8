public import CrateDomain
public import Foundation
import GRDB

/// What the feeds read: one cheap row per album to choose from, the chosen albums in full, and likes and
/// dislikes of catalog albums (kept beside the library's own opinions, one per album, so they exclude
/// each other the same way).
extension LibraryStore {
    /// Every library album's facts, in id order.
    public func albumFacts() throws -> [AlbumFacts] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT album.id, album.identity, album.artist_id, artist.name AS artist, album.genre, album.year,
                       album.added_at, album.play_count, album.last_played_at, opinion.value AS opinion
                FROM album
                JOIN artist ON artist.id = album.artist_id
                LEFT JOIN opinion ON opinion.kind = 'album' AND opinion.item_id = album.id
                WHERE \(Self.notStreams)
                ORDER BY album.id
                """).map { row in
                AlbumFacts(id: row["id"], identity: row["identity"], artistID: row["artist_id"], artist: row["artist"],
                           genre: row["genre"], year: row["year"], addedAt: Date(timeIntervalSince1970: row["added_at"]),
                           playCount: row["play_count"],
                           lastPlayedAt: (row["last_played_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                           opinion: (row["opinion"] as String?).flatMap(Opinion.init(rawValue:)))
            }
        }
    }

    /// Albums by id, in the order given; ids that no longer exist are left out.
    public func albums(ids: [Int64]) throws -> [Album] {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            try Self.fetch(ids, Self.albumSelect + " WHERE album.id IN", db, suffix: " GROUP BY album.id").map(Self.album)
        }
    }

    /// Likes or dislikes a catalog album (nil clears), keeping the album as given. The album needs its
    /// `externalID`.
    public func setCatalogOpinion(_ album: Album, _ opinion: Opinion?, at now: Date = Date(), unsent: Bool = false) throws {
        guard let externalID = album.externalID, !externalID.isEmpty else {
            throw StoreError.invalid("a catalog album needs its catalog id")
        }
        var stored = album
        stored.opinion = opinion
        let json = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try write { db in
            if let opinion {
                try db.execute(sql: """
                    INSERT INTO catalog_opinion (source, external_id, value, created_at, album_json, unsent) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(source, external_id) DO UPDATE SET album_json = excluded.album_json,
                        value = excluded.value, unsent = excluded.unsent,
                        created_at = CASE WHEN value = excluded.value THEN created_at ELSE excluded.created_at END
                    """, arguments: [album.source, externalID, opinion.rawValue, now.timeIntervalSince1970, json, unsent])
            } else {
                try db.execute(sql: "DELETE FROM catalog_opinion WHERE source = ? AND external_id = ?",
                               arguments: [album.source, externalID])
            }
        }
    }

    /// Catalog opinions not yet sent to the catalog, oldest first (each album carries its opinion).
    public func unsentCatalogOpinions() throws -> [Album] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT album_json FROM catalog_opinion WHERE unsent = 1 ORDER BY created_at")
                .compactMap { try? JSONDecoder().decode(Album.self, from: Data($0.utf8)) }
        }
    }

    /// The opinion of one catalog album.
    public func catalogOpinion(source: String, externalID: String) throws -> Opinion? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM catalog_opinion WHERE source = ? AND external_id = ?",
                                arguments: [source, externalID]).flatMap(Opinion.init(rawValue:))
        }
    }

    /// Catalog albums with this opinion, newest first. A row whose album no longer decodes is left out.
    public func catalogAlbums(_ opinion: Opinion) throws -> [Album] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT album_json FROM catalog_opinion WHERE value = ? ORDER BY created_at DESC",
                                arguments: [opinion.rawValue])
                .compactMap { try? JSONDecoder().decode(Album.self, from: Data($0.utf8)) }
        }
    }
}

extension LibraryStore {
    /// Likes and dislikes round-trip through both opinion tables inside a transaction that is rolled back,
    /// so nothing of the user's changes: a like reads back, a dislike then replaces it (one opinion per
    /// album). Returns what went wrong, empty when all is well.
    public func opinionSelfTest() throws -> [String] {
        var problems: [String] = []
        try write { db in
            try db.inSavepoint {
                let probe = "diagnose-probe-\(UUID().uuidString)"
                let now = Date().timeIntervalSince1970
                for value in ["favorite", "dislike"] {
                    try db.execute(sql: """
                        INSERT INTO catalog_opinion (source, external_id, value, created_at, album_json) VALUES ('probe', ?, ?, ?, '{}')
                        ON CONFLICT(source, external_id) DO UPDATE SET value = excluded.value
                        """, arguments: [probe, value, now])
                    let back = try String.fetchAll(db, sql: "SELECT value FROM catalog_opinion WHERE source = 'probe' AND external_id = ?",
                                                   arguments: [probe])
                    if back != [value] { problems.append("catalog opinions: wrote \(value), read back \(back)") }
                }
                if let album = try Int64.fetchOne(db, sql: "SELECT id FROM album LIMIT 1") {
                    for value in ["favorite", "dislike"] {
                        try db.execute(sql: """
                            INSERT INTO opinion (kind, item_id, value, created_at) VALUES ('album', ?, ?, ?)
                            ON CONFLICT(kind, item_id) DO UPDATE SET value = excluded.value
                            """, arguments: [album, value, now])
                        let back = try String.fetchAll(db, sql: "SELECT value FROM opinion WHERE kind = 'album' AND item_id = ?",
                                                       arguments: [album])
                        if back != [value] { problems.append("library opinions: wrote \(value), read back \(back)") }
                    }
                }
                return .rollback
            }
        }
        return problems
    }
}
