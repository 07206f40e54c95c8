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
        let genre = try p.required("genre").trimmingCharacters(in: .whitespaces).lowercased()
        let count = min(max(try p.int("count", default: 10), 0), ListEndpoints.largestPage)
        let offset = max(try p.int("offset", default: 0), 0)
        var matching: [Track] = []
        // Read in pages and stop once the page asked for is complete: a large library is not read to its end.
        let page = 5000
        var start = 0
        while matching.count < offset + count {
            let tracks = try call.services.collection.tracks(sort: ListSort(.artist), offset: start, limit: page)
            matching += tracks.filter { track in
                track.ref.isFile && GenreList.values(of: track.genre ?? "").contains { $0.lowercased() == genre }
            }
            guard tracks.count == page else { break }
            start += page
        }
        let songs = try matching.dropFirst(offset).prefix(count).map { try call.items.song($0) }
        return .payload(SubsonicObject { $0["songsByGenre"] = SubsonicObject { $0["song"] = songs } })
    }
}
