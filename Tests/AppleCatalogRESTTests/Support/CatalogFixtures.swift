import Foundation

/// JSON resources in Apple's shapes (fact sheet §2), with invented ids and names. They carry the
/// required keys, optional ones, and undocumented extras the client must ignore.
enum CatalogFixtures {
    static let artworkTemplate = "https://is1-ssl.mzstatic.com/image/thumb/Music116/v4/0a/1b/2c/0a1b2c3d-fake/cover.jpg/{w}x{h}bb.jpg"

    static func json(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text
    }

    static func artwork(width: Int? = 3000, height: Int? = 3000) -> [String: Any] {
        ["url": artworkTemplate, "width": width.map { $0 as Any } ?? NSNull(), "height": height.map { $0 as Any } ?? NSNull(),
         "bgColor": "1a1b1c", "textColor1": "f0f0f0", "textColor2": "e0e0e0", "textColor3": "d0d0d0", "textColor4": "c0c0c0"]
    }

    static func album(id: String, name: String, artist: String = "The Invented Quartet", genres: [String] = ["Jazz", "Music"],
                      releaseDate: String? = "1959-08-17", trackCount: Int = 2, withArtwork: Bool = true, isCompilation: Bool = false,
                      tracks: [[String: Any]]? = nil, tracksNext: String? = nil, sf: String = "us") -> [String: Any] {
        var attributes: [String: Any] = [
            "artistName": artist, "genreNames": genres, "isCompilation": isCompilation, "isComplete": true,
            "isMasteredForItunes": false, "isSingle": false, "name": name, "trackCount": trackCount,
            "url": "https://music.apple.com/\(sf)/album/\(slug(name))/\(id)",
            "playParams": ["id": id, "kind": "album"], "recordLabel": "Imaginary Records", "upc": "00602445545803",
            "copyright": "℗ 1959 Imaginary Records", "editorialNotes": ["standard": "An <i>invented</i> record.", "short": "Invented."],
            // Undocumented keys seen in real payloads.
            "isPrerelease": false, "audioTraits": ["lossless", "lossy-stereo"],
        ]
        if withArtwork { attributes["artwork"] = artwork() }
        if let releaseDate { attributes["releaseDate"] = releaseDate }
        var object: [String: Any] = ["id": id, "type": "albums", "href": "/v1/catalog/\(sf)/albums/\(id)", "attributes": attributes]
        if let tracks {
            var relationship: [String: Any] = ["href": "/v1/catalog/\(sf)/albums/\(id)/tracks", "data": tracks]
            if let tracksNext { relationship["next"] = tracksNext }
            object["relationships"] = [
                "tracks": relationship,
                "artists": ["href": "/v1/catalog/\(sf)/albums/\(id)/artists",
                            "data": [["id": "300000001", "type": "artists", "href": "/v1/catalog/\(sf)/artists/300000001"]]],
            ]
        }
        return object
    }

    static func song(id: String, name: String, albumID: String, albumName: String, artist: String = "The Invented Quartet",
                     trackNumber: Int, discNumber: Int = 1, millis: Int = 240_000, preview: Bool = true,
                     genres: [String] = ["Jazz", "Music"], previewBase: String? = nil, sf: String = "us") -> [String: Any] {
        var attributes: [String: Any] = [
            "albumName": albumName, "artistName": artist, "artwork": artwork(), "durationInMillis": millis,
            "genreNames": genres, "hasLyrics": true, "isAppleDigitalMaster": false, "name": name,
            "url": "https://music.apple.com/\(sf)/album/\(slug(albumName))/\(albumID)?i=\(id)",
            "trackNumber": trackNumber, "discNumber": discNumber, "releaseDate": "1959-08-17", "isrc": "USXX15900001",
            "playParams": ["id": id, "kind": "song"], "composerName": "A. Composer",
        ]
        // Apple's audio host, or (`previewBase`) the fake server itself, which then serves the file.
        let previewURL = previewBase.map { "\($0)/previews/\(id).m4a" }
            ?? "https://audio-ssl.itunes.apple.com/itunes-assets/AudioPreview126/v4/aa/bb/cc/fake-\(id)/mzaf_\(id).plus.aac.p.m4a"
        attributes["previews"] = preview ? [["url": previewURL]] : []
        return ["id": id, "type": "songs", "href": "/v1/catalog/\(sf)/songs/\(id)", "attributes": attributes]
    }

    static func musicVideo(id: String) -> [String: Any] {
        ["id": id, "type": "music-videos", "href": "/v1/catalog/us/music-videos/\(id)",
         "attributes": ["name": "A Video", "artistName": "The Invented Quartet", "durationInMillis": 200_000,
                        "previews": [["url": "https://video-ssl.itunes.apple.com/fake.m4v"]]]]
    }

    static func artist(id: String, name: String) -> [String: Any] {
        ["id": id, "type": "artists", "href": "/v1/catalog/us/artists/\(id)",
         "attributes": ["name": name, "genreNames": ["Jazz"], "url": "https://music.apple.com/us/artist/\(slug(name))/\(id)",
                        "artwork": artwork(width: 2400, height: 2400)]]
    }

    static func playlist(id: String) -> [String: Any] {
        ["id": id, "type": "playlists", "href": "/v1/catalog/us/playlists/\(id)",
         "attributes": ["name": "Invented Mix", "curatorName": "Apple Music", "playlistType": "editorial",
                        "artwork": artwork(width: nil, height: nil), "description": ["standard": "A mix."]]]
    }

    static func station(id: String) -> [String: Any] {
        ["id": id, "type": "stations", "href": "/v1/catalog/us/stations/\(id)",
         "attributes": ["name": "Invented Radio", "isLive": false, "mediaKind": "audio", "artwork": artwork()]]
    }

    static func libraryAlbum(id: String, name: String, dateAdded: String) -> [String: Any] {
        ["id": id, "type": "library-albums", "href": "/v1/me/library/albums/\(id)",
         "attributes": ["artistName": "Library Artist", "artwork": ["url": artworkTemplate, "width": 1200, "height": 1200],
                        "dateAdded": dateAdded, "genreNames": ["Rock"], "name": name,
                        "playParams": ["id": id, "kind": "album", "isLibrary": true], "releaseDate": "2001-05-01", "trackCount": 9]]
    }

    static func genre(id: String, name: String, parentID: String?) -> [String: Any] {
        var attributes: [String: Any] = ["name": name]
        if let parentID {
            attributes["parentId"] = parentID
            attributes["parentName"] = parentID == "34" ? "Music" : "Other"
        }
        return ["id": id, "type": "genres", "href": "/v1/catalog/us/genres/\(id)", "attributes": attributes]
    }

    static func slug(_ name: String) -> String {
        name.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
    }
}
