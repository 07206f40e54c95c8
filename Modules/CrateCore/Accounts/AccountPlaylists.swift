public import CrateDomain
import CrateStorage
import Foundation

/// Playlists as the household's accounts see them. The owner's are Crate's own (the web page's and MPD's; edits
/// publish their events as any edit of them does); everyone else's are their own. Each is private unless made public,
/// and only its owner changes it.
public struct AccountPlaylists: Sendable {
    let store: LibraryStore
    let collection: MusicCollection

    /// Which playlist: one of Crate's own, or another account's.
    public struct Ref: Sendable, Hashable {
        public var home: SharedPlaylist.Home
        public var id: Int64
        public init(_ home: SharedPlaylist.Home, _ id: Int64) {
            self.home = home
            self.id = id
        }
    }

    /// The account's own playlists, then everyone else's public ones.
    public func playlists(for account: Account) throws -> [SharedPlaylist] {
        let owner = try store.accountRecords().first { $0.account.isOwner }?.account.name ?? ""
        let sharing = try store.playlistSharing()
        let crate = try collection.playlists().map { shared($0, owner: owner, sharing: sharing) }
        if account.isOwner {
            return crate + (try store.accountPlaylists(accountID: account.id, othersPublic: true))
        }
        let own = try store.accountPlaylists(accountID: account.id, othersPublic: true)
        return own.filter { $0.owner == account.name } + crate.filter(\.isPublic) + own.filter { $0.owner != account.name }
    }

    /// A playlist the account can see, with its tracks in order.
    public func playlist(_ ref: Ref, for account: Account) throws -> (playlist: SharedPlaylist, tracks: [Track]) {
        switch ref.home {
        case .crate:
            guard let playlist = try collection.playlist(id: ref.id) else { throw AccountError.noSuchPlaylist("\(ref.id)") }
            let owner = try store.accountRecords().first { $0.account.isOwner }?.account.name ?? ""
            let shared = shared(playlist, owner: owner, sharing: try store.playlistSharing())
            guard account.isOwner || shared.isPublic else { throw AccountError.noSuchPlaylist("\(ref.id)") }
            return (shared, try collection.playlistEntries(id: ref.id).map(\.track))
        case .account:
            guard let found = try store.accountPlaylist(id: ref.id), found.accountID == account.id || found.playlist.isPublic else {
                throw AccountError.noSuchPlaylist("\(ref.id)")
            }
            return (found.playlist, try store.accountPlaylistTracks(id: ref.id))
        }
    }

    /// A new playlist of the account's: the owner's goes into Crate's own.
    public func create(name: String, trackIDs: [Int64], for account: Account) throws -> Ref {
        if account.isOwner { return Ref(.crate, try collection.createPlaylist(name: name, trackIDs: trackIDs).id) }
        return Ref(.account, try store.createAccountPlaylist(accountID: account.id, name: name, trackIDs: trackIDs))
    }

    /// Replaces the tracks of one of the account's playlists (Subsonic's createPlaylist with a playlistId).
    public func replaceTracks(_ ref: Ref, with trackIDs: [Int64], for account: Account) throws {
        try checkOwn(ref, account)
        switch ref.home {
        case .crate: try collection.replacePlaylistTracks(id: ref.id, with: trackIDs)
        case .account: try store.updateAccountPlaylist(id: ref.id, replacing: trackIDs)
        }
    }

    /// Renames, comments, shares, removes entries (0-based, of the order before) and appends tracks.
    public func update(_ ref: Ref, name: String? = nil, comment: String? = nil, isPublic: Bool? = nil, adding: [Int64] = [],
                       removing: [Int] = [], for account: Account) throws {
        try checkOwn(ref, account)
        switch ref.home {
        case .crate:
            if let name { try collection.renamePlaylist(id: ref.id, to: name) }
            if comment != nil || isPublic != nil { try store.setPlaylistSharing(id: ref.id, isPublic: isPublic, comment: comment) }
            // Crate's positions are 1-based.
            if !removing.isEmpty { try collection.removeFromPlaylist(id: ref.id, at: removing.map { $0 + 1 }) }
            if !adding.isEmpty { try collection.addToPlaylist(id: ref.id, trackIDs: adding) }
        case .account:
            try store.updateAccountPlaylist(id: ref.id, name: name, comment: comment, isPublic: isPublic, adding: adding, removing: removing)
        }
    }

    public func delete(_ ref: Ref, for account: Account) throws {
        try checkOwn(ref, account)
        switch ref.home {
        case .crate: try collection.deletePlaylist(id: ref.id)
        case .account: try store.deleteAccountPlaylist(id: ref.id)
        }
    }

    /// Where the account's app left off.
    public func playQueue(for account: Account) throws -> PlayQueue? { try store.playQueue(accountID: account.id) }

    public func savePlayQueue(_ queue: PlayQueue, for account: Account) throws { try store.savePlayQueue(accountID: account.id, queue) }

    private func checkOwn(_ ref: Ref, _ account: Account) throws {
        let (playlist, _) = try self.playlist(ref, for: account)
        switch ref.home {
        case .crate: guard account.isOwner else { throw AccountError.notYours(playlist.name) }
        case .account: guard playlist.owner == account.name else { throw AccountError.notYours(playlist.name) }
        }
    }

    private func shared(_ playlist: Playlist, owner: String, sharing: [Int64: (isPublic: Bool, comment: String?)]) -> SharedPlaylist {
        SharedPlaylist(id: playlist.id, home: .crate, name: playlist.name, comment: sharing[playlist.id]?.comment, owner: owner,
                       isPublic: sharing[playlist.id]?.isPublic ?? false, trackCount: playlist.trackCount, duration: playlist.duration,
                       createdAt: playlist.createdAt, updatedAt: playlist.updatedAt)
    }
}
