import CrateCore
import CrateDomain
import Foundation

/// The songs of one genre, page by page (`getSongsByGenre`), as genre pages in apps list them.
enum GenreSongsEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getSongsByGenre": .signedIn(songsByGenre),
    ]

    /// Songs carrying `genre` (any of a song's genre values, in any case), in the library's artist and album order;
    /// `count` (10 unless given, at most 500) from `offset`.
    static func songsByGenre(_ call: SubsonicCall) throws -> SubsonicReply {
        let p = call.parameters
        let genre = try p.required("genre").trimmingCharacters(in: .whitespaces)
        let count = min(max(try p.int("count", default: 10), 0), ListEndpoints.largestPage)
        let offset = max(try p.int("offset", default: 0), 0)
        let songs = try call.services.collection.tracks(genre: genre, offset: offset, limit: count).map { try call.items.song($0) }
        return .payload(SubsonicObject { $0["songsByGenre"] = SubsonicObject { $0["song"] = songs } })
    }
}
