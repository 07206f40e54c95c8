import CrateCore
import CrateDomain
import Foundation

/// Lists: album lists of every type, random songs, starred items, search (paged, and everything for an empty
/// query, which apps use to sync a library), playlists and radio stations.
enum ListEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getAlbumList": .signedIn { try albumList($0, legacy: true) },
        "getAlbumList2": .signedIn { try albumList($0, legacy: false) },
        "getRandomSongs": .signedIn(randomSongs),
        "getStarred": .signedIn { try starred($0, legacy: true) },
        "getStarred2": .signedIn { try starred($0, legacy: false) },
        "search2": .signedIn { try await search($0, legacy: true) },
        "search3": .signedIn { try await search($0, legacy: false) },
        "getInternetRadioStations": .signedIn(stations),
    ]

    /// The most items one list answers (the spec's limit for album lists; searches and random songs alike).
    static let largestPage = 500

    static func page<T>(_ items: [T], offset: Int, size: Int) -> ArraySlice<T> {
        items.dropFirst(max(0, offset)).prefix(max(0, min(size, largestPage)))
    }

    // MARK: Album lists

    static func albumList(_ call: SubsonicCall, legacy: Bool) throws -> SubsonicReply {
        let p = call.parameters
        let type = try p.required("type")
        let size = try p.int("size", default: 10), offset = try p.int("offset", default: 0)
        let albums = try albums(ofType: type, call)
        let list = try page(albums, offset: type == "random" ? 0 : offset, size: size).map { try call.items.album($0, legacy: legacy) }
        return .payload(SubsonicObject { $0[legacy ? "albumList" : "albumList2"] = SubsonicObject { $0["album"] = list } })
    }

    /// The library's albums in the order a list type asks for, by this person's stars, ratings and plays.
    static func albums(ofType type: String, _ call: SubsonicCall) throws -> [Album] {
        let collection = call.services.collection, items = call.items, p = call.parameters
        func all(_ sort: ListSort<AlbumSort> = ListSort(.artist)) throws -> [Album] {
            try collection.albums(sort: sort, includeDisliked: true)
        }
        switch type {
        case "random": return try all().shuffled()
        case "newest": return try all(ListSort(.added, .descending))
        case "alphabeticalByName": return try all(ListSort(.title))
        case "alphabeticalByArtist": return try all(ListSort(.artist))
        case "highest":
            let rated = try all().compactMap { album in try items.rating(.album, album.id).map { (album, $0) } }
            return rated.sorted { $0.1 > $1.1 }.map(\.0)
        case "frequent":
            let played = try all().map { ($0, try items.playCount(of: $0)) }.filter { $0.1 > 0 }
            return played.sorted { $0.1 > $1.1 }.map(\.0)
        case "recent":
            // Core keeps when each album was last played for the household; others' lists hold the albums they played.
            let played = try all().filter { album in
                guard album.lastPlayedAt != nil else { return false }
                return try call.account.isOwner || items.playCount(of: album) > 0
            }
            return played.sorted { ($0.lastPlayedAt ?? .distantPast) > ($1.lastPlayedAt ?? .distantPast) }
        case "starred":
            let dates = try items.starDates()
            return try call.services.runtime.listening.starred(for: call.account).albums.sorted {
                (dates[Starred.key(.album, $0.id)] ?? .distantPast) > (dates[Starred.key(.album, $1.id)] ?? .distantPast)
            }
        case "byYear":
            guard let from = try p.int("fromYear", default: nil) else { throw SubsonicError.missing("fromYear") }
            guard let to = try p.int("toYear", default: nil) else { throw SubsonicError.missing("toYear") }
            let years = min(from, to)...max(from, to)
            return try all(ListSort(.year, from > to ? .descending : .ascending)).filter { $0.year.map(years.contains) ?? false }
        case "byGenre":
            let genre = try p.required("genre").lowercased()
            return try all().filter { GenreList.values(of: $0.genre ?? "").contains { $0.lowercased() == genre } }
        default:
            throw SubsonicError.invalid("type", type, expected: "one of random, newest, highest, frequent, recent, "
                                        + "alphabeticalByName, alphabeticalByArtist, starred, byYear, byGenre")
        }
    }

    // MARK: Random songs

    /// `size` songs at random (10 by default), of a genre and between two years when asked.
    static func randomSongs(_ call: SubsonicCall) throws -> SubsonicReply {
        let p = call.parameters, collection = call.services.collection
        let size = min(max(try p.int("size", default: 10), 0), largestPage)
        let genre = p.string("genre")?.lowercased()
        let from = try p.int("fromYear", default: nil), to = try p.int("toYear", default: nil)
        var chosen: [Track] = []
        if genre == nil, from == nil, to == nil {
            // No filter: a few random places in the library, without reading it all.
            let total = try collection.counts().tracks
            var offsets = Set<Int>()
            while offsets.count < min(size, total) { offsets.insert(Int.random(in: 0..<total)) }
            for offset in offsets {
                chosen += try collection.tracks(sort: ListSort(.added), offset: offset, limit: 1)
            }
        } else {
            var matching: [Track] = []
            let page = 5000
            var offset = 0
            while true {
                let tracks = try collection.tracks(sort: ListSort(.added), offset: offset, limit: page)
                matching += tracks.filter { track in
                    let year = SubsonicItems.year(track.date)
                    if let genre, !GenreList.values(of: track.genre ?? "").contains(where: { $0.lowercased() == genre }) { return false }
                    if let from, (year ?? .min) < from { return false }
                    if let to, (year ?? .max) > to { return false }
                    return true
                }
                guard tracks.count == page else { break }
                offset += page
            }
            chosen = Array(matching.shuffled().prefix(size))
        }
        let songs = try chosen.map { try call.items.song($0) }
        return .payload(SubsonicObject { $0["randomSongs"] = SubsonicObject { $0["song"] = songs } })
    }

    // MARK: Starred

    static func starred(_ call: SubsonicCall, legacy: Bool) throws -> SubsonicReply {
        let starred = try call.services.runtime.listening.starred(for: call.account)
        let artists = try starred.artists.map { try call.items.artist($0) }
        let albums = try starred.albums.map { try call.items.album($0, legacy: legacy) }
        let songs = try starred.tracks.map { try call.items.song($0) }
        return .payload(SubsonicObject {
            $0[legacy ? "starred" : "starred2"] = SubsonicObject { list in
                list["artist"] = artists
                list["album"] = albums
                list["song"] = songs
            }
        })
    }

    // MARK: Search

    /// Artists, albums and songs matching `query`, each paged by its own count and offset. An empty query, or `""`
    /// (two double quotes, as apps send it), matches everything: that is how apps copy a whole library.
    static func search(_ call: SubsonicCall, legacy: Bool) async throws -> SubsonicReply {
        let p = call.parameters, collection = call.services.collection
        let query = (p.string("query") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let artistCount = try p.int("artistCount", default: 20), artistOffset = max(0, try p.int("artistOffset", default: 0))
        let albumCount = try p.int("albumCount", default: 20), albumOffset = max(0, try p.int("albumOffset", default: 0))
        let songCount = try p.int("songCount", default: 20), songOffset = max(0, try p.int("songOffset", default: 0))
        var artists: [Artist] = [], albums: [Album] = [], songs: [Track] = []
        if query.isEmpty || query == "\"\"" {
            if artistCount > 0 { artists = Array(page(try collection.albumArtists(), offset: artistOffset, size: artistCount)) }
            if albumCount > 0 {
                albums = Array(page(try collection.albums(sort: ListSort(.artist), includeDisliked: true), offset: albumOffset, size: albumCount))
            }
            if songCount > 0 {
                songs = try collection.tracks(sort: ListSort(.artist), offset: songOffset, limit: min(songCount, largestPage))
            }
        } else {
            func find(_ group: SearchGroup, offset: Int, count: Int) async throws -> SearchGroupResult? {
                guard count > 0 else { return nil }
                return try await call.services.runtime.search.search(query, groups: [group], offset: offset,
                                                                     limit: min(count, largestPage)).group(group)
            }
            artists = try await find(.artists, offset: artistOffset, count: artistCount)?.artists ?? []
            albums = try await find(.albums, offset: albumOffset, count: albumCount)?.albums ?? []
            songs = try await find(.tracks, offset: songOffset, count: songCount)?.tracks ?? []
        }
        let result = try SubsonicObject { result in
            result["artist"] = try artists.map { try call.items.artist($0) }
            result["album"] = try albums.map { try call.items.album($0, legacy: legacy) }
            result["song"] = try songs.map { try call.items.song($0) }
        }
        return .payload(SubsonicObject { $0[legacy ? "searchResult2" : "searchResult3"] = result })
    }

    // MARK: Stations (playlists: PlaylistEndpoints)

    static func stations(_ call: SubsonicCall) throws -> SubsonicReply {
        let list = try call.services.collection.stations().map { station in
            SubsonicObject { item in
                item["id"] = SubsonicID.station(station.id)
                item["name"] = station.name
                item["streamUrl"] = station.url
            }
        }
        return .payload(SubsonicObject { $0["internetRadioStations"] = SubsonicObject { $0["internetRadioStation"] = list } })
    }
}
