public import CrateDomain
public import Foundation
import GRDB

/// An account as stored: the public part, its encrypted password and its API key's hash (Core checks them).
public struct AccountRecord: Sendable {
    public var account: Account
    public var sealedPassword: Data
    public var apiKeyHash: String?
}

/// Accounts (the Subsonic API's people) and what each non-owner starred, rated and played. The owner's stars and
/// plays are the opinion table and the tracks' play counts; Core chooses which side to use.
extension LibraryStore {
    static func accountRecord(_ row: Row) -> AccountRecord {
        let hash: String? = row["api_key_hash"]
        return AccountRecord(
            account: Account(id: row["id"], name: row["name"], isAdmin: row["is_admin"], isOwner: row["is_owner"], jukebox: row["jukebox"],
                             hasAPIKey: hash != nil, createdAt: Date(timeIntervalSince1970: row["created_at"])),
            sealedPassword: row["password"], apiKeyHash: hash)
    }

    public func accountRecords() throws -> [AccountRecord] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM account ORDER BY name COLLATE NOCASE").map(Self.accountRecord) }
    }

    public func accountRecord(named name: String) throws -> AccountRecord? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM account WHERE name = ?", arguments: [name]).map(Self.accountRecord) }
    }

    public func accountRecord(apiKeyHash: String) throws -> AccountRecord? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM account WHERE api_key_hash = ?", arguments: [apiKeyHash]).map(Self.accountRecord) }
    }

    /// Adds an account; `owner` takes the owner's place from whoever held it (there is one owner).
    public func insertAccount(name: String, sealedPassword: Data, admin: Bool, owner: Bool, jukebox: Bool, now: Date = Date()) throws -> Account {
        try write { db in
            if owner { try db.execute(sql: "UPDATE account SET is_owner = 0 WHERE is_owner = 1") }
            try db.execute(sql: """
                INSERT INTO account (name, is_admin, is_owner, jukebox, password, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [name, admin, owner, jukebox, sealedPassword, now.timeIntervalSince1970])
            return Account(id: db.lastInsertedRowID, name: name, isAdmin: admin, isOwner: owner, jukebox: jukebox, hasAPIKey: false,
                           createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970))
        }
    }

    /// Removes an account and everything that was only its own; true when it existed.
    public func deleteAccount(id: Int64) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM account WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func setSealedPassword(accountID: Int64, _ sealed: Data) throws {
        try write { db in try db.execute(sql: "UPDATE account SET password = ? WHERE id = ?", arguments: [sealed, accountID]) }
    }

    public func setAPIKeyHash(accountID: Int64, _ hash: String?) throws {
        try write { db in try db.execute(sql: "UPDATE account SET api_key_hash = ? WHERE id = ?", arguments: [hash, accountID]) }
    }

    public func setAccountRoles(accountID: Int64, admin: Bool, jukebox: Bool) throws {
        try write { db in
            try db.execute(sql: "UPDATE account SET is_admin = ?, jukebox = ? WHERE id = ?", arguments: [admin, jukebox, accountID])
        }
    }

    // MARK: Stars, ratings and plays of accounts other than the owner

    public func setAccountStar(accountID: Int64, _ kind: FavoriteKind, id: Int64, starred: Bool, now: Date = Date()) throws {
        try write { db in
            if starred {
                try db.execute(sql: """
                    INSERT INTO account_star (account_id, kind, item_id, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """, arguments: [accountID, kind.rawValue, id, now.timeIntervalSince1970])
            } else {
                try db.execute(sql: "DELETE FROM account_star WHERE account_id = ? AND kind = ? AND item_id = ?",
                               arguments: [accountID, kind.rawValue, id])
            }
        }
    }

    /// An account's stars with their dates, keyed `kind:id` (`Starred.key`).
    public func accountStarDates(accountID: Int64) throws -> [String: Date] {
        try read { db in
            var dates: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, item_id, created_at FROM account_star WHERE account_id = ?", arguments: [accountID]) {
                dates["\(row["kind"] as String):\(row["item_id"] as Int64)"] = Date(timeIntervalSince1970: row["created_at"])
            }
            return dates
        }
    }

    /// The owner's stars: the opinion table's favorites of tracks, albums and artists, keyed `kind:id`.
    public func favoriteDates() throws -> [String: Date] {
        try read { db in
            var dates: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT kind, item_id, created_at FROM opinion WHERE value = 'favorite' AND kind IN ('track', 'album', 'artist')
                """) {
                dates["\(row["kind"] as String):\(row["item_id"] as Int64)"] = Date(timeIntervalSince1970: row["created_at"])
            }
            return dates
        }
    }

    /// What an account starred, newest first in each kind.
    public func accountStarred(accountID: Int64) throws -> Starred {
        try read { db in
            func ids(_ kind: FavoriteKind) -> String {
                "SELECT item_id FROM account_star WHERE account_id = \(accountID) AND kind = '\(kind.rawValue)'"
            }
            func order(_ kind: FavoriteKind, _ column: String) -> String {
                " ORDER BY (SELECT created_at FROM account_star WHERE account_id = \(accountID) AND kind = '\(kind.rawValue)' AND item_id = \(column)) DESC"
            }
            return Starred(
                artists: try Row.fetchAll(db, sql: Self.artistSelect + " WHERE artist.id IN (\(ids(.artist)))" + order(.artist, "artist.id")).map(Self.artist),
                albums: try Row.fetchAll(db, sql: Self.albumSelect + " WHERE album.id IN (\(ids(.album))) GROUP BY album.id"
                                         + order(.album, "album.id")).map(Self.album),
                tracks: try Row.fetchAll(db, sql: Self.trackSelect + " WHERE track.id IN (\(ids(.track)))" + order(.track, "track.id")).map(Self.track))
        }
    }

    public func setAccountRating(accountID: Int64, _ kind: FavoriteKind, id: Int64, rating: Int) throws {
        try write { db in
            if rating <= 0 {
                try db.execute(sql: "DELETE FROM account_rating WHERE account_id = ? AND kind = ? AND item_id = ?",
                               arguments: [accountID, kind.rawValue, id])
            } else {
                try db.execute(sql: """
                    INSERT INTO account_rating (account_id, kind, item_id, rating) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account_id, kind, item_id) DO UPDATE SET rating = excluded.rating
                    """, arguments: [accountID, kind.rawValue, id, min(rating, 5)])
            }
        }
    }

    /// An account's ratings, keyed `kind:id`.
    public func accountRatings(accountID: Int64) throws -> [String: Int] {
        try read { db in
            var ratings: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, item_id, rating FROM account_rating WHERE account_id = ?", arguments: [accountID]) {
                ratings["\(row["kind"] as String):\(row["item_id"] as Int64)"] = row["rating"]
            }
            return ratings
        }
    }

    public func recordAccountPlay(accountID: Int64, trackID: Int64, at date: Date = Date()) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO account_play (account_id, track_id, play_count, last_played_at) VALUES (?, ?, 1, ?)
                ON CONFLICT (account_id, track_id) DO UPDATE SET play_count = play_count + 1, last_played_at = excluded.last_played_at
                """, arguments: [accountID, trackID, date.timeIntervalSince1970])
        }
    }

    public func accountPlayCounts(accountID: Int64) throws -> [Int64: Int] {
        try read { db in
            var counts: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT track_id, play_count FROM account_play WHERE account_id = ?", arguments: [accountID]) {
                counts[row["track_id"]] = row["play_count"]
            }
            return counts
        }
    }

    /// The library's own play counts (the owner's), for the tracks that were played.
    public func trackPlayCounts() throws -> [Int64: Int] {
        try read { db in
            var counts: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, play_count FROM track WHERE play_count > 0") { counts[row["id"]] = row["play_count"] }
            return counts
        }
    }
}
