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
        let size = min(max(try p.int("size", default: 10), 0), largestPage), offset = max(0, try p.int("offset", default: 0))
        let list = try albums(ofType: type, offset: type == "random" ? 0 : offset, size: size, call)
            .map { try call.items.album($0, legacy: legacy) }
        return .payload(SubsonicObject { $0[legacy ? "albumList" : "albumList2"] = SubsonicObject { $0["album"] = list } })
    }

    /// A page of the library's albums in the order a list type asks for, by this person's stars, ratings and plays.
    /// The library pages its own orders; the others are chosen from one cheap row per album, and only the page's
    /// albums are read in full.
    static func albums(ofType type: String, offset: Int, size: Int, _ call: SubsonicCall) throws -> [Album] {
        let collection = call.services.collection, items = call.items, p = call.parameters
        func sorted(_ sort: ListSort<AlbumSort>) throws -> [Album] {
            try collection.albums(sort: sort, includeDisliked: true, offset: offset, limit: size)
        }
        func chosen(_ ids: [Int64]) throws -> [Album] { try collection.albums(ids: Array(ids.dropFirst(offset).prefix(size))) }
        func byArtist(_ a: AlbumFacts, _ b: AlbumFacts) -> Bool {
            switch a.artist.localizedCaseInsensitiveCompare(b.artist) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return (a.year ?? .max, a.id) < (b.year ?? .max, b.id)
            }
        }
        switch type {
        case "newest": return try sorted(ListSort(.added, .descending))
        case "alphabeticalByName": return try sorted(ListSort(.title))
        case "alphabeticalByArtist": return try sorted(ListSort(.artist))
        case "random": return try chosen(collection.albumFacts().map(\.id).shuffled())
        case "highest":
            let rated = try collection.albumFacts().compactMap { album in try items.rating(.album, album.id).map { (album.id, $0) } }
            return try chosen(rated.sorted { $0.1 > $1.1 }.map(\.0))
        case "frequent":
            let played = try collection.albumFacts()
                .map { ($0.id, try items.playCount(ofAlbum: $0.id, libraryCount: $0.playCount)) }.filter { $0.1 > 0 }
            return try chosen(played.sorted { $0.1 > $1.1 }.map(\.0))
        case "recent":
            // Core keeps when each album was last played for the household; others' lists hold the albums they played.
            let played = try collection.albumFacts().filter { album in
                guard album.lastPlayedAt != nil else { return false }
                return try call.account.isOwner || items.playCount(ofAlbum: album.id, libraryCount: album.playCount) > 0
            }
            return try chosen(played.sorted { ($0.lastPlayedAt ?? .distantPast) > ($1.lastPlayedAt ?? .distantPast) }.map(\.id))
        case "starred":
            let dates = try items.starDates()
            let starred = try call.services.runtime.listening.starred(for: call.account).albums.sorted {
                (dates[Starred.key(.album, $0.id)] ?? .distantPast) > (dates[Starred.key(.album, $1.id)] ?? .distantPast)
            }
            return Array(starred.dropFirst(offset).prefix(size))
        case "byYear":
            guard let from = try p.int("fromYear", default: nil) else { throw SubsonicError.missing("fromYear") }
            guard let to = try p.int("toYear", default: nil) else { throw SubsonicError.missing("toYear") }
            let years = min(from, to)...max(from, to)
            let matching = try collection.albumFacts().compactMap { album in album.year.map { (album, $0) } }.filter { years.contains($0.1) }
            // fromYear after toYear lists the years backwards, as the spec has it.
            return try chosen(matching.sorted { a, b in
                a.1 == b.1 ? byArtist(a.0, b.0) : (from > to ? a.1 > b.1 : a.1 < b.1)
            }.map(\.0.id))
        case "byGenre":
            let genre = try p.required("genre").lowercased()
            let matching = try collection.albumFacts().filter { album in
                GenreList.values(of: album.genre ?? "").contains { $0.lowercased() == genre }
            }
            return try chosen(matching.sorted(by: byArtist).map(\.id))
        default:
            throw SubsonicError.invalid("type", type, expected: "one of random, newest, highest, frequent, recent, "
                                        + "alphabeticalByName, alphabeticalByArtist, starred, byYear, byGenre")
        }
    }

    // MARK: Random songs

    /// `size` songs at random (10 by default), of a genre and between two years when asked.
    static func randomSongs(_ call: SubsonicCall) throws -> SubsonicReply {
        let p = call.parameters
        let size = min(max(try p.int("size", default: 10), 0), largestPage)
        let genre = p.string("genre")
        let from = try p.int("fromYear", default: nil), to = try p.int("toYear", default: nil)
        let chosen: [Track]
        switch (from, to) {
        case (nil, nil): chosen = try call.services.collection.randomTracks(count: size, genre: genre)
        case let (from, to) where (from ?? .min) <= (to ?? .max):
            chosen = try call.services.collection.randomTracks(count: size, genre: genre, years: (from ?? .min)...(to ?? .max))
        default: chosen = []  // fromYear after toYear: no year lies between them
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
                albums = try collection.albums(sort: ListSort(.artist), includeDisliked: true, offset: albumOffset,
                                               limit: min(albumCount, largestPage))
            }
            if songCount > 0 {
                // Apps copying the library keep their own order: the stored order pages cheaply and stays stable.
                songs = try collection.tracksInStoredOrder(offset: songOffset, limit: min(songCount, largestPage))
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
