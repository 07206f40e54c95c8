import CrateCore
import CrateDomain
import Foundation

/// What a person says about the music: stars, ratings and plays. They are that person's own; the owner's are Crate's
/// (a star is a favorite, a play counts in the library's history), through Core's listening service.
enum AnnotationEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "star": .signedIn { try mark($0, starred: true) },
        "unstar": .signedIn { try mark($0, starred: false) },
        "setRating": .signedIn(setRating),
        "scrobble": .signedIn(scrobble),
    ]

    /// Stars or unstars every item named by `id` (a song, album or artist), `albumId` and `artistId`, all repeatable.
    static func mark(_ call: SubsonicCall, starred: Bool) throws -> SubsonicReply {
        let p = call.parameters
        var items: [SubsonicID] = []
        for text in p.all("id") { items.append(try SubsonicID.parse(text, parameter: "id", as: .track, .album, .artist)) }
        for text in p.all("albumId") { items.append(try SubsonicID.parse(text, parameter: "albumId", as: .album)) }
        for text in p.all("artistId") { items.append(try SubsonicID.parse(text, parameter: "artistId", as: .artist)) }
        guard !items.isEmpty else { throw SubsonicError.missing("id") }
        // All checked first: one unknown id changes nothing.
        let kinds = try items.map { try existing($0, call) }
        for (kind, id) in kinds {
            if starred {
                try call.services.runtime.listening.star(kind, id: id, for: call.account)
            } else {
                try call.services.runtime.listening.unstar(kind, id: id, for: call.account)
            }
        }
        return .ok
    }

    /// 1 to 5 stars for a song, album or artist; 0 takes the rating away.
    static func setRating(_ call: SubsonicCall) throws -> SubsonicReply {
        let id = try SubsonicID.parse(try call.parameters.required("id"), parameter: "id", as: .track, .album, .artist)
        guard let rating = try call.parameters.int("rating", default: nil) else { throw SubsonicError.missing("rating") }
        guard (0...5).contains(rating) else {
            throw SubsonicError.invalid("rating", String(rating), expected: "1 to 5, or 0 to remove the rating")
        }
        let (kind, number) = try existing(id, call)
        try call.services.runtime.listening.setRating(kind, id: number, rating: rating, for: call.account)
        return .ok
    }

    /// Plays of songs (`id`, repeatable), each at its `time` (milliseconds since 1970) or now. A "now playing" notice
    /// (`submission=false`) is passed on too (Core counts only submissions) and shown by getNowPlaying.
    static func scrobble(_ call: SubsonicCall) throws -> SubsonicReply {
        let p = call.parameters
        let ids = try p.all("id").map { try SubsonicID.parse($0, parameter: "id", as: .track).number }
        guard !ids.isEmpty else { throw SubsonicError.missing("id") }
        let times = try p.all("time").map { text in
            guard let milliseconds = Double(text) else { throw SubsonicError.invalid("time", text, expected: "milliseconds since 1970") }
            return Date(timeIntervalSince1970: milliseconds / 1000)
        }
        let submission = p.bool("submission", default: true)
        for id in ids where try call.services.collection.track(id: id) == nil { throw SubsonicError.notFound("song tr-\(id)") }
        for (n, id) in ids.enumerated() {
            try call.services.runtime.listening.scrobble(trackID: id, at: n < times.count ? times[n] : Date(), submission: submission,
                                                          for: call.account)
        }
        if !submission, let playing = ids.last {
            call.services.nowPlaying.playing(user: call.account.name, trackID: playing, player: p.string("c"))
        }
        return .ok
    }

    /// The kind and number of an item that exists; else error 70.
    private static func existing(_ id: SubsonicID, _ call: SubsonicCall) throws -> (FavoriteKind, Int64) {
        let collection = call.services.collection
        switch id {
        case .track(let n):
            guard try collection.track(id: n) != nil else { throw SubsonicError.notFound("song \(id.text)") }
            return (.track, n)
        case .album(let n):
            guard try collection.album(id: n) != nil else { throw SubsonicError.notFound("album \(id.text)") }
            return (.album, n)
        case .artist(let n):
            guard try collection.artist(id: n) != nil else { throw SubsonicError.notFound("artist \(id.text)") }
            return (.artist, n)
        case .playlist, .accountPlaylist, .station:
            throw SubsonicError.notFound(id.text)
        }
    }
}
