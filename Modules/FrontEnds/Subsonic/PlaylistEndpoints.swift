import CrateCore
import CrateDomain
import Foundation

/// Playlists and the play queue, per account: the owner's playlists are Crate's own (`pl-`, the ones the web page
/// and MPD show), everyone else's their own (`pu-`); each is private unless made public, and only its owner edits it.
/// The play queue is where an app left off (to resume on another device), not crated's own queue.
enum PlaylistEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getPlaylists": .signedIn(playlists),
        "getPlaylist": .signedIn(playlist),
        "createPlaylist": .signedIn(create),
        "updatePlaylist": .signedIn(update),
        "deletePlaylist": .signedIn(delete),
        "getPlayQueue": .signedIn(playQueue),
        "savePlayQueue": .signedIn(savePlayQueue),
    ]

    static func ref(_ text: String, parameter: String) throws -> AccountPlaylists.Ref {
        switch try SubsonicID.parse(text, parameter: parameter, as: .playlist, .accountPlaylist) {
        case .accountPlaylist(let id): AccountPlaylists.Ref(.account, id)
        case let id: AccountPlaylists.Ref(.crate, id.number)
        }
    }

    static func id(_ playlist: SharedPlaylist) -> String {
        playlist.home == .crate ? SubsonicID.playlist(playlist.id) : SubsonicID.accountPlaylist(playlist.id).text
    }

    static func object(_ playlist: SharedPlaylist, for account: Account) -> SubsonicObject {
        SubsonicObject { item in
            item["id"] = id(playlist)
            item["name"] = playlist.name
            item["comment"] = playlist.comment
            item["owner"] = playlist.owner
            item["public"] = playlist.isPublic
            item["songCount"] = playlist.trackCount
            item["duration"] = Int(playlist.duration.rounded())
            item["created"] = playlist.createdAt
            item["changed"] = playlist.updatedAt
            item["readonly"] = playlist.owner != account.name
        }
    }

    /// `username` (an admin's ask) lists what that account sees.
    static func playlists(_ call: SubsonicCall) throws -> SubsonicReply {
        var account = call.account
        if let name = call.parameters.string("username"), name.lowercased() != account.name.lowercased() {
            guard account.isAdmin else { throw SubsonicError(.notAuthorized, "only an admin lists another account's playlists") }
            guard let other = try call.services.runtime.accounts.account(named: name) else { throw SubsonicError.notFound("user \(name)") }
            account = other
        }
        let list = try call.services.runtime.accountPlaylists.playlists(for: account).map { object($0, for: call.account) }
        return .payload(SubsonicObject { $0["playlists"] = SubsonicObject { $0["playlist"] = list } })
    }

    static func playlist(_ call: SubsonicCall) throws -> SubsonicReply {
        let ref = try self.ref(try call.parameters.required("id"), parameter: "id")
        let item = try full(ref, call)
        return .payload(SubsonicObject { $0["playlist"] = item })
    }

    /// A playlist with its songs.
    static func full(_ ref: AccountPlaylists.Ref, _ call: SubsonicCall) throws -> SubsonicObject {
        let (playlist, tracks) = try found { try call.services.runtime.accountPlaylists.playlist(ref, for: call.account) }
        var item = object(playlist, for: call.account)
        item["coverArt"] = tracks.lazy.compactMap(\.artworkHash).first
        item["entry"] = try tracks.map { try call.items.song($0) }
        return item
    }

    /// `name` and `songId`s make a new one; `playlistId` and `songId`s replace an existing one's songs.
    static func create(_ call: SubsonicCall) throws -> SubsonicReply {
        let songs = try call.parameters.all("songId").map { try SubsonicID.parse($0, parameter: "songId", as: .track).number }
        let playlists = call.services.runtime.accountPlaylists
        let ref: AccountPlaylists.Ref
        if let existing = call.parameters.string("playlistId") {
            ref = try self.ref(existing, parameter: "playlistId")
            try found { try playlists.replaceTracks(ref, with: songs, for: call.account) }
        } else {
            let name = try call.parameters.required("name")
            ref = try found { try playlists.create(name: name, trackIDs: songs, for: call.account) }
        }
        let item = try full(ref, call)
        return .payload(SubsonicObject { $0["playlist"] = item })
    }

    static func update(_ call: SubsonicCall) throws -> SubsonicReply {
        let parameters = call.parameters
        let ref = try ref(try parameters.required("playlistId"), parameter: "playlistId")
        let adding = try parameters.all("songIdToAdd").map { try SubsonicID.parse($0, parameter: "songIdToAdd", as: .track).number }
        let removing = try parameters.all("songIndexToRemove").map { text -> Int in
            guard let index = Int(text), index >= 0 else { throw SubsonicError.invalid("songIndexToRemove", text, expected: "a place from 0") }
            return index
        }
        let isPublic = parameters.has("public") ? parameters.bool("public", default: false) : nil
        try found {
            try call.services.runtime.accountPlaylists.update(ref, name: parameters.string("name"), comment: parameters.string("comment"),
                                                              isPublic: isPublic, adding: adding, removing: removing, for: call.account)
        }
        return .ok
    }

    static func delete(_ call: SubsonicCall) throws -> SubsonicReply {
        let ref = try self.ref(try call.parameters.required("id"), parameter: "id")
        try found { try call.services.runtime.accountPlaylists.delete(ref, for: call.account) }
        return .ok
    }

    static func playQueue(_ call: SubsonicCall) throws -> SubsonicReply {
        guard let queue = try call.services.runtime.accountPlaylists.playQueue(for: call.account) else { return .ok }
        let collection = call.services.collection
        let songs = try queue.trackIDs.compactMap { try collection.track(id: $0) }.map { try call.items.song($0) }
        return .payload(SubsonicObject {
            $0["playQueue"] = SubsonicObject { item in
                item["current"] = queue.current.map(SubsonicID.track)
                item["position"] = queue.positionMs
                item["username"] = call.account.name
                item["changed"] = queue.changedAt
                item["changedBy"] = queue.changedBy
                item["entry"] = songs
            }
        })
    }

    /// `id`s in order, the `current` one and the `position` in it (ms); none clears the queue.
    static func savePlayQueue(_ call: SubsonicCall) throws -> SubsonicReply {
        let parameters = call.parameters
        let ids = try parameters.all("id").map { try SubsonicID.parse($0, parameter: "id", as: .track).number }
        let current = try parameters.string("current").map { try SubsonicID.parse($0, parameter: "current", as: .track).number }
        let queue = PlayQueue(trackIDs: ids, current: current, positionMs: max(0, try parameters.int("position", default: 0)),
                              changedAt: Date(), changedBy: parameters.string("c") ?? "")
        try call.services.runtime.accountPlaylists.savePlayQueue(queue, for: call.account)
        return .ok
    }

    /// Core's refusals in the API's terms: not found (70), someone else's (50), a bad name (10).
    static func found<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AccountError {
            switch error {
            case .notYours: throw SubsonicError(.notAuthorized, error.description)
            default: throw SubsonicError(.notFound, error.description)
            }
        } catch let error as StoreError {
            throw SubsonicError(.generic, error.description)
        }
    }
}
