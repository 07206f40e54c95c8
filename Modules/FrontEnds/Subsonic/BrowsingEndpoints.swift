import CrateCore
import CrateDomain
import Foundation

/// Browsing by tags (Subsonic's "ID3" family): artists, an artist's albums, an album's songs, a song, the genres.
enum BrowsingEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getArtists": .signedIn(artists),
        "getArtist": .signedIn(artist),
        "getAlbum": .signedIn(album),
        "getSong": .signedIn(song),
        "getGenres": .signedIn(genres),
    ]

    /// The articles artist names are sorted without (Crate's sort keys drop them).
    static let ignoredArticles = "The A An"

    /// Album artists by the first letter they sort by (`#` for the rest).
    static func artists(_ call: SubsonicCall) throws -> SubsonicReply {
        let index = try artistIndex(call)
        return .payload(SubsonicObject {
            $0["artists"] = SubsonicObject { list in
                list["ignoredArticles"] = ignoredArticles
                list["index"] = index
            }
        })
    }

    /// The `index` list getArtists and getIndexes share: one entry per first letter, each with its artists.
    static func artistIndex(_ call: SubsonicCall) throws -> [SubsonicObject] {
        var groups: [(name: String, artists: [SubsonicObject])] = []
        for artist in try call.services.collection.albumArtists() {
            let name = indexName(artist.sortKey.isEmpty ? artist.name : artist.sortKey)
            let item = try call.items.artist(artist)
            if groups.last?.name == name {
                groups[groups.count - 1].artists.append(item)
            } else if let existing = groups.firstIndex(where: { $0.name == name }) {
                groups[existing].artists.append(item)
            } else {
                groups.append((name, [item]))
            }
        }
        groups.sort { $0.name < $1.name }
        return groups.map { group in SubsonicObject { $0["name"] = group.name; $0["artist"] = group.artists } }
    }

    static func indexName(_ key: String) -> String {
        guard let first = key.first?.uppercased(), first.count == 1, let letter = first.unicodeScalars.first,
              ("A"..."Z").contains(letter) else { return "#" }
        return first
    }

    static func artist(_ call: SubsonicCall) throws -> SubsonicReply {
        let id = try SubsonicID.parse(try call.parameters.required("id"), parameter: "id", as: .artist).number
        guard let artist = try call.services.collection.artist(id: id) else { throw SubsonicError.notFound("artist ar-\(id)") }
        let albums = try call.services.collection.albums(sort: ListSort(.year), includeDisliked: true, artistID: id)
        var item = try call.items.artist(artist)
        item["album"] = try albums.map { try call.items.album($0) }
        return .payload(SubsonicObject { $0["artist"] = item })
    }

    static func album(_ call: SubsonicCall) throws -> SubsonicReply {
        let album = try libraryAlbum(try call.parameters.required("id"), call)
        var item = try call.items.album(album)
        item["song"] = try call.services.collection.tracks(albumID: album.id).map { try call.items.song($0) }
        return .payload(SubsonicObject { $0["album"] = item })
    }

    static func song(_ call: SubsonicCall) throws -> SubsonicReply {
        let track = try libraryTrack(try call.parameters.required("id"), call)
        return .payload(try SubsonicObject { $0["song"] = try call.items.song(track) })
    }

    /// Every genre value of the library's songs, with how many songs and albums carry it, by name.
    static func genres(_ call: SubsonicCall) throws -> SubsonicReply {
        let list = try call.services.collection.genreCounts().map { count in
            SubsonicObject { genre in
                genre["songCount"] = count.trackCount
                genre["albumCount"] = count.albumCount
                genre["value"] = count.name
            }
        }
        return .payload(SubsonicObject { $0["genres"] = SubsonicObject { $0["genre"] = list } })
    }

    /// The library album an `al-` id names (not a hidden one: radio streams, catalog previews).
    static func libraryAlbum(_ text: String, _ call: SubsonicCall, parameter: String = "id") throws -> Album {
        let id = try SubsonicID.parse(text, parameter: parameter, as: .album).number
        guard let album = try call.services.collection.album(id: id), album.isLibraryAlbum, album.identity != Station.albumIdentity,
              !album.identity.hasPrefix(CatalogPreview.identityPrefix) else { throw SubsonicError.notFound("album al-\(id)") }
        return album
    }

    /// The library track a `tr-` id names.
    static func libraryTrack(_ text: String, _ call: SubsonicCall, parameter: String = "id") throws -> Track {
        let id = try SubsonicID.parse(text, parameter: parameter, as: .track).number
        guard let track = try call.services.collection.track(id: id), track.ref.isFile else {
            throw SubsonicError.notFound("song tr-\(id)")
        }
        return track
    }
}
