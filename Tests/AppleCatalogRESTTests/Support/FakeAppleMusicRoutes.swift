import Foundation

/// The fake server's catalog and account: endpoints, page sizes and limit maxima as the fact sheet
/// documents them (§3, §5), including the quirks (charts nest as arrays, search as one object,
/// `next` without `limit`, 404 past the end of the library, writes without a body).
enum FakeAppleMusicRoutes {
    typealias Seen = FakeAppleMusic.Seen
    typealias Reply = FakeAppleMusic.Reply

    // Albums with known contents (see `album(id:)`).
    static let detailedAlbumID = "1500000001"
    static let yearOnlyAlbumID = "1500000002"
    static let longAlbumID = "1500000003"
    static let longAlbumTracks = 305
    static let chartTotal = 120
    static let searchAlbumTotal = 40
    static let searchSongTotal = 30
    static let artistAlbumTotal = 130
    static let relatedTotal = 14

    static func answer(_ seen: Seen, options: FakeAppleMusic.Options, state: FakeState) async -> Reply {
        let s = seen.segments
        switch (seen.method, s.count) {
        case ("GET", 3) where s[1] == "storefronts":
            return .json(CatalogFixtures.json(["data": [storefront(s[2])]]))
        case ("GET", _) where s.count >= 4 && s[1] == "catalog":
            return catalog(seen, Array(s.dropFirst(2)), previewBase: options.previewBase)
        case (_, _) where s.count >= 3 && s[1] == "me":
            return await personal(seen, Array(s.dropFirst(2)), options: options, state: state)
        default:
            return .error(404, code: "40400", title: "Resource Not Found")
        }
    }

    // MARK: Catalog

    private static func catalog(_ seen: Seen, _ s: [String], previewBase: String?) -> Reply {
        let sf = s[0]
        switch Array(s.dropFirst()) {
        case ["genres"]:
            return genres(seen, sf: sf)
        case ["charts"]:
            return charts(seen, sf: sf)
        case ["search"]:
            return search(seen, sf: sf)
        case ["albums"]:
            return batch(seen, sf: sf, previewBase: previewBase)
        case let p where p.count == 2 && p[0] == "albums":
            guard let album = album(id: p[1], sf: sf, previewBase: previewBase) else { return notFound() }
            return .json(CatalogFixtures.json(["data": [album]]))
        case let p where p.count == 3 && p[0] == "albums" && p[2] == "tracks":
            return longTracks(seen, albumID: p[1], sf: sf)
        case let p where p.count == 4 && p[0] == "albums" && p[2] == "view" && p[3] == "related-albums":
            return paged(seen, total: relatedTotal, defaultLimit: 10, max: 10, path: "/v1/catalog/\(sf)/albums/\(p[1])/view/related-albums") { i in
                CatalogFixtures.album(id: String(1_700_000_001 + i), name: "Related \(i + 1)", sf: sf)
            }
        case let p where p.count == 3 && p[0] == "artists" && p[2] == "albums":
            return paged(seen, total: artistAlbumTotal, defaultLimit: 25, max: 100, path: "/v1/catalog/\(sf)/artists/\(p[1])/albums") { i in
                CatalogFixtures.album(id: String(1_800_000_001 + i), name: "Discography \(i + 1)", sf: sf)
            }
        default:
            return .error(404, code: "40400", title: "Resource Not Found")
        }
    }

    /// The item positions of a page: `limit` from `offset`, cut at `total`; empty past the end.
    static func slice(_ offset: Int, _ limit: Int, of total: Int) -> Range<Int> {
        offset..<Swift.max(offset, Swift.min(offset + limit, total))
    }

    static func notFound() -> Reply {
        .error(404, code: "40400", title: "Resource Not Found", detail: "Resource with requested id was not found")
    }

    static func tooLarge(_ limit: Int, max: Int) -> Reply {
        .error(400, code: "40005", title: "Invalid Parameter Value",
               detail: "Value must be an integer less than or equal to \(max), but was: \(limit)", parameter: "limit")
    }

    /// Top-charts genres, four per page (the list's page size is not documented).
    private static func genres(_ seen: Seen, sf: String) -> Reply {
        let all = [("34", "Music", nil), ("20", "Alternative", "34"), ("11", "Jazz", "34"), ("14", "Pop", "34"),
                   ("21", "Rock", "34"), ("1153", "Metal", "21"), ("51", "K-Pop", "14")]
        let offset = seen.int("offset") ?? 0
        let page = all.dropFirst(offset).prefix(4).map { CatalogFixtures.genre(id: $0.0, name: $0.1, parentID: $0.2) }
        var doc: [String: Any] = ["data": page]
        if offset + 4 < all.count { doc["next"] = "/v1/catalog/\(sf)/genres?offset=\(offset + 4)" }
        return .json(CatalogFixtures.json(doc))
    }

    /// `results.albums` is an array of chart objects; a decoy chart comes first. Genre 21's `next`
    /// drops `limit` (as recorded in 2017–18), others keep it (as in the 2022 documentation).
    private static func charts(_ seen: Seen, sf: String) -> Reply {
        guard seen.query["types"] == "albums" else { return .error(400, code: "40003", title: "Missing Parameter") }
        let genre = seen.query["genre"]
        if genre == "999" { return .json(#"{"results":{},"meta":{"results":{"order":[]}}}"#) }
        let limit = seen.int("limit") ?? 20
        if limit > 50 { return tooLarge(limit, max: 50) }
        let offset = seen.int("offset") ?? 0
        let base = 800_000_000 + (Int(genre ?? "0") ?? 0) * 1000
        let albums = slice(offset, limit, of: chartTotal).map { i in
            CatalogFixtures.album(id: String(base + i + 1), name: "Chart \(genre ?? "all") #\(i + 1)", sf: sf)
        }
        let g = genre.map { "&genre=\($0)" } ?? ""
        var chart: [String: Any] = ["chart": "most-played", "name": "Top Albums", "orderId": "most-played:albums",
                                    "href": "/v1/catalog/\(sf)/charts?chart=most-played\(g)&limit=\(limit)&types=albums", "data": albums]
        if offset + limit < chartTotal {
            chart["next"] = genre == "21"
                ? "/v1/catalog/\(sf)/charts?types=albums&chart=most-played\(g)&offset=\(offset + limit)"
                : "/v1/catalog/\(sf)/charts?chart=most-played\(g)&limit=\(limit)&offset=\(offset + limit)&types=albums"
        }
        let decoy: [String: Any] = ["chart": "daily-global-top-albums", "name": "Daily Top 100: Global",
                                    "data": [CatalogFixtures.album(id: "777777777", name: "Decoy", sf: sf)]]
        return .json(CatalogFixtures.json(["results": ["albums": [decoy, chart]],
                                           "meta": ["results": ["order": ["daily-global-top-albums", "most-played:albums"]]]]))
    }

    /// `results.<type>` is one object; `next` drops `limit`; a type without hits is left out
    /// (all of them for "nothing here", songs for terms containing "nosongs").
    private static func search(_ seen: Seen, sf: String) -> Reply {
        guard let term = seen.query["term"], !term.isEmpty else { return .error(400, code: "40003", title: "Missing Parameter") }
        let limit = seen.int("limit") ?? 5
        if limit > 25 { return tooLarge(limit, max: 25) }
        let offset = seen.int("offset") ?? 0
        let types = (seen.query["types"] ?? "").split(separator: ",").map(String.init)
        var results: [String: Any] = [:]
        if term == "nothing here" { return .json(#"{"results":{},"meta":{"results":{"order":[],"rawOrder":[]}}}"#) }
        let encodedTerm = term.split(separator: " ").map { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
            .joined(separator: "+")
        func section(_ type: String, total: Int, make: (Int) -> [String: Any]) -> [String: Any] {
            var object: [String: Any] = ["href": "/v1/catalog/\(sf)/search?limit=\(limit)&term=\(encodedTerm)&types=\(type)",
                                         "data": slice(offset, limit, of: total).map(make)]
            if offset + limit < total { object["next"] = "/v1/catalog/\(sf)/search?offset=\(offset + limit)&term=\(encodedTerm)&types=\(type)" }
            return object
        }
        let title = term.capitalized
        if types.contains("albums") {
            results["albums"] = section("albums", total: searchAlbumTotal) { i in
                CatalogFixtures.album(id: String(600_000_001 + i), name: "\(title) Album \(i + 1)", artist: "\(title) Band", sf: sf)
            }
        }
        if types.contains("artists") {
            results["artists"] = section("artists", total: 3) { i in CatalogFixtures.artist(id: String(300_000_001 + i), name: "\(title) Band \(i + 1)") }
        }
        if types.contains("songs"), !term.contains("nosongs") {
            results["songs"] = section("songs", total: searchSongTotal) { i in
                CatalogFixtures.song(id: String(610_000_001 + i), name: "\(title) Song \(i + 1)", albumID: "600000001",
                                     albumName: "\(title) Album 1", artist: "\(title) Band", trackNumber: i + 1, sf: sf)
            }
        }
        return .json(CatalogFixtures.json(["results": results, "meta": ["results": ["order": Array(results.keys).sorted()]]]))
    }

    /// `albums?ids=`: at most 100; unknown ids left out; answered in reverse order (the client keeps its own).
    private static func batch(_ seen: Seen, sf: String, previewBase: String?) -> Reply {
        let ids = (seen.query["ids"] ?? "").split(separator: ",").map(String.init)
        if ids.count > 100 {
            return .error(400, code: "40005", title: "Invalid Parameter Value", detail: "Too many ids: \(ids.count)", parameter: "ids")
        }
        return .json(CatalogFixtures.json(["data": Array(ids.compactMap { album(id: $0, sf: sf, previewBase: previewBase) }.reversed())]))
    }

    /// Known albums: a two-disc album, a year-only one without artwork, a 305-track box; any other
    /// number not divisible by 7 is a plain two-track album; the rest do not exist. `previewBase`: songs' previews are
    /// that server's `/previews/<song id>.m4a` (see `FakeAppleMusic.Options.previews`).
    static func album(id: String, sf: String, previewBase: String? = nil) -> [String: Any]? {
        switch id {
        case detailedAlbumID:
            let name = "Kind of Invented"
            let specs = [(1, 1, 300_000, true), (2, 1, 250_000, true), (3, 1, 200_000, false), (1, 2, 150_000, true), (2, 2, 100_000, true)]
            var tracks = specs.enumerated().map { n, spec in
                CatalogFixtures.song(id: String(1_500_000_101 + n), name: "Part \(n + 1)", albumID: id, albumName: name,
                                     artist: n == 4 ? "The Invented Quartet feat. A Guest" : "The Invented Quartet",
                                     trackNumber: spec.0, discNumber: spec.1, millis: spec.2, preview: spec.3,
                                     previewBase: previewBase, sf: sf)
            }
            tracks.append(CatalogFixtures.musicVideo(id: "1500000199"))
            return CatalogFixtures.album(id: id, name: name, genres: ["Jazz", "Music", "Bebop"], trackCount: 6, tracks: tracks, sf: sf)
        case yearOnlyAlbumID:
            let song = CatalogFixtures.song(id: "1500000201", name: "Only Song", albumID: id, albumName: "Year Only",
                                            trackNumber: 1, millis: 61_500, preview: false, genres: ["Music"], previewBase: previewBase, sf: sf)
            return CatalogFixtures.album(id: id, name: "Year Only", genres: ["Music"], releaseDate: "1972", trackCount: 1,
                                         withArtwork: false, tracks: [song], sf: sf)
        case longAlbumID:
            let tracks = (0..<300).map { longSong($0, sf: sf) }
            return CatalogFixtures.album(id: id, name: "Long Box", genres: ["Classical", "Music"], releaseDate: "2001-01-01",
                                         trackCount: longAlbumTracks, tracks: tracks,
                                         tracksNext: "/v1/catalog/\(sf)/albums/\(id)/tracks?offset=300", sf: sf)
        default:
            guard let n = Int(id), n % 7 != 0 else { return nil }
            let tracks = (0..<2).map { i in
                CatalogFixtures.song(id: String(n) + "0\(i + 1)", name: "Track \(i + 1)", albumID: id, albumName: "Album \(id)",
                                     trackNumber: i + 1, millis: 180_000, previewBase: previewBase, sf: sf)
            }
            return CatalogFixtures.album(id: id, name: "Album \(id)", trackCount: 2, tracks: tracks, sf: sf)
        }
    }

    private static func longSong(_ i: Int, sf: String) -> [String: Any] {
        CatalogFixtures.song(id: String(1_500_300_000 + i + 1), name: "Movement \(i + 1)", albumID: longAlbumID, albumName: "Long Box",
                             trackNumber: i % 100 + 1, discNumber: i / 100 + 1, millis: 60_000, sf: sf)
    }

    /// `albums/{id}/tracks`: the relationship fetched directly, 300 at most.
    private static func longTracks(_ seen: Seen, albumID: String, sf: String) -> Reply {
        guard albumID == longAlbumID else { return notFound() }
        let limit = seen.int("limit") ?? 300
        if limit > 300 { return tooLarge(limit, max: 300) }
        let offset = seen.int("offset") ?? 0
        let songs = slice(offset, limit, of: longAlbumTracks).map { longSong($0, sf: sf) }
        return .json(CatalogFixtures.json(["data": songs]))
    }

    /// A collection endpoint with `offset` paging and a `next` without `limit`.
    private static func paged(_ seen: Seen, total: Int, defaultLimit: Int, max: Int, path: String,
                              make: (Int) -> [String: Any]) -> Reply {
        let limit = seen.int("limit") ?? defaultLimit
        if limit > max { return tooLarge(limit, max: max) }
        let offset = seen.int("offset") ?? 0
        var doc: [String: Any] = ["data": slice(offset, limit, of: total).map(make)]
        if offset + limit < total { doc["next"] = "\(path)?offset=\(offset + limit)" }
        return .json(CatalogFixtures.json(doc))
    }

    private static func storefront(_ id: String) -> [String: Any] {
        ["id": id, "type": "storefronts", "href": "/v1/storefronts/\(id)",
         "attributes": ["defaultLanguageTag": "en-US", "explicitContentPolicy": "allowed", "name": "Invented Land",
                        "supportedLanguageTags": ["en-US", "es-MX"]]]
    }

    // MARK: Personal

    private static func personal(_ seen: Seen, _ s: [String], options: FakeAppleMusic.Options, state: FakeState) async -> Reply {
        switch (seen.method, s) {
        case ("GET", ["storefront"]):
            return .json(CatalogFixtures.json(["data": [storefront(options.meStorefront)]]))
        case ("GET", ["recent", "played"]):
            // Mixed albums, playlists and stations, 10 at most per page.
            return paged(seen, total: 25, defaultLimit: 10, max: 10, path: "/v1/me/recent/played") { i in
                switch i % 3 {
                case 0: CatalogFixtures.album(id: String(1_900_000_001 + i), name: "Played \(i)")
                case 1: CatalogFixtures.playlist(id: "pl.\(String(repeating: "a", count: 31))\(i % 10)")
                default: CatalogFixtures.station(id: "ra.\(1_000_000 + i)")
                }
            }
        case ("GET", ["history", "heavy-rotation"]):
            return paged(seen, total: 12, defaultLimit: 10, max: 10, path: "/v1/me/history/heavy-rotation") { i in
                i.isMultiple(of: 2) ? CatalogFixtures.album(id: String(1_910_000_001 + i), name: "Rotation \(i)")
                    : CatalogFixtures.playlist(id: "pl.\(String(repeating: "b", count: 31))\(i % 10)")
            }
        case ("GET", ["recommendations"]):
            return .json(CatalogFixtures.json(["data": recommendations()]))
        case ("GET", ["library", "albums"]):
            let limit = seen.int("limit") ?? 25
            if limit > 100 { return tooLarge(limit, max: 100) }
            let offset = seen.int("offset") ?? 0
            // Past the end (or an empty library): 404, not an empty page.
            guard offset < options.libraryCount else { return notFound() }
            let page = slice(offset, limit, of: options.libraryCount).map { i in
                CatalogFixtures.libraryAlbum(id: "l.AbC\(i)", name: "Library Album \(i)", dateAdded: "2022-08-06T02:18:\(10 + i)Z")
            }
            // A `next` even on the last page: the client must take the 404 that follows as the end.
            return .json(CatalogFixtures.json(["data": page, "next": "/v1/me/library/albums?offset=\(offset + page.count)",
                                               "meta": ["total": options.libraryCount]]))
        case ("POST", ["library"]), ("POST", ["favorites"]):
            guard seen.query["ids[albums]"] != nil else { return .error(400, code: "40003", title: "Missing Parameter") }
            return .status(202)
        case ("PUT", let p) where p.count == 3 && p[0] == "ratings" && p[1] == "albums":
            guard let body = try? JSONSerialization.jsonObject(with: Data(seen.body.utf8)) as? [String: Any],
                  let attributes = body["attributes"] as? [String: Any], let value = attributes["value"] as? Int,
                  value == 1 || value == -1 else {
                return .error(400, code: "40005", title: "Invalid Parameter Value", parameter: "value")
            }
            await state.rate(p[2], value)
            return .json(CatalogFixtures.json(["data": [["id": p[2], "type": "ratings", "href": "/v1/me/ratings/albums/\(p[2])",
                                                         "attributes": ["value": value]]]]))
        case ("DELETE", let p) where p.count == 3 && p[0] == "ratings" && p[1] == "albums":
            return await state.unrate(p[2]) ? .status(204) : notFound()
        default:
            return .error(404, code: "40400", title: "Path Not Found")
        }
    }

    /// Two recommendations; their contents mix albums (one a bare identifier, one repeated) with a
    /// playlist and a station.
    private static func recommendations() -> [[String: Any]] {
        func rec(_ id: String, _ title: String, _ contents: [[String: Any]]) -> [String: Any] {
            ["id": id, "type": "personal-recommendation", "href": "/v1/me/recommendations/\(id)",
             "attributes": ["kind": "music-recommendations", "title": ["stringForDisplay": title], "isGroupRecommendation": false,
                            "nextUpdateDate": "2026-11-23T00:00:00Z", "resourceTypes": ["albums", "playlists"]],
             "relationships": ["contents": ["href": "/v1/me/recommendations/\(id)/contents", "data": contents]]]
        }
        let first = CatalogFixtures.album(id: "1920000001", name: "Made For You")
        let bare: [String: Any] = ["id": "1920000002", "type": "albums", "href": "/v1/catalog/us/albums/1920000002"]
        return [
            rec("6-27s5hU6azhJY", "Made for You", [first, CatalogFixtures.playlist(id: "pl.cccccccccccccccccccccccccccccccc"), bare]),
            rec("6-27s5hU6azhJZ", "Recently Played", [first, CatalogFixtures.station(id: "ra.985484166"),
                                                      CatalogFixtures.album(id: "1920000003", name: "Also For You")]),
        ]
    }
}
