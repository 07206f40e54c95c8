public import CrateDomain
import CrateStorage
public import Foundation

/// Each person's stars, ratings and plays. The owner's are Crate's own — a star is a favorite, a play counts in the
/// library's play counts and history, and a 1-star album is a dislike (it leaves the Crate Wall) — so what the owner
/// does in a phone app shows on the web page and feeds the wall. Everyone else's are their own rows.
public struct Listening: Sendable {
    let store: LibraryStore
    let collection: MusicCollection

    public func star(_ kind: FavoriteKind, id: Int64, for account: Account) throws {
        if account.isOwner { try collection.setOpinion(kind, id: id, .favorite) } else {
            try store.setAccountStar(accountID: account.id, kind, id: id, starred: true)
        }
    }

    public func unstar(_ kind: FavoriteKind, id: Int64, for account: Account) throws {
        if account.isOwner { try collection.clearOpinion(kind, id: id, only: .favorite) } else {
            try store.setAccountStar(accountID: account.id, kind, id: id, starred: false)
        }
    }

    /// When each starred item was starred, keyed `Starred.key(kind, id)`.
    public func starDates(for account: Account) throws -> [String: Date] {
        account.isOwner ? try store.favoriteDates() : try store.accountStarDates(accountID: account.id)
    }

    public func starred(for account: Account) throws -> Starred {
        guard account.isOwner else {
            var starred = try store.accountStarred(accountID: account.id)
            starred.dates = try store.accountStarDates(accountID: account.id)
            return starred
        }
        let favorites = try store.favorites()
        // Liked catalog albums are not the library's to offer to an app.
        return Starred(artists: favorites.artists, albums: favorites.albums.filter { $0.externalID == nil },
                       tracks: favorites.tracks, dates: try store.favoriteDates())
    }

    /// 0 clears; 1…5. The owner's 1 on an album is Crate's dislike, and moving off 1 takes that dislike back.
    public func setRating(_ kind: FavoriteKind, id: Int64, rating: Int, for account: Account) throws {
        let rating = max(0, min(rating, 5))
        if account.isOwner && kind == .album {
            let before = try store.accountRatings(accountID: account.id)[Starred.key(kind, id)]
            if rating == 1 {
                try collection.setOpinion(.album, id: id, .dislike)
            } else if before == 1 {
                try collection.clearOpinion(.album, id: id, only: .dislike)
            }
        }
        try store.setAccountRating(accountID: account.id, kind, id: id, rating: rating)
    }

    /// Ratings keyed `Starred.key(kind, id)`.
    public func ratings(for account: Account) throws -> [String: Int] { try store.accountRatings(accountID: account.id) }

    /// A play heard to the end (`submission`) counts; a "now playing" notice does not.
    public func scrobble(trackID: Int64, at date: Date = Date(), submission: Bool = true, for account: Account) throws {
        guard submission else { return }
        if account.isOwner { try store.recordPlay(trackID: trackID, at: date) } else {
            try store.recordAccountPlay(accountID: account.id, trackID: trackID, at: date)
        }
    }

    /// Play counts by track id (only played tracks).
    public func playCounts(for account: Account) throws -> [Int64: Int] {
        account.isOwner ? try store.trackPlayCounts() : try store.accountPlayCounts(accountID: account.id)
    }
}
