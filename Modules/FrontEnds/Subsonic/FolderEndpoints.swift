import CrateCore
import CrateDomain
import Foundation

/// Browsing by folders, for apps that never moved to the tag endpoints (DSub, older Ultrasonic). Crate has no
/// folders to show (its library is tags, and a server's paths tell a phone nothing), so the folders are made from
/// the tags: the one music folder holds the album artists, an artist holds their albums, an album its songs. The
/// folder ids are the same `ar-`/`al-` ids as everywhere else, so an app may mix both kinds of browsing.
enum FolderEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getIndexes": .signedIn(indexes),
        "getMusicDirectory": .signedIn(directory),
    ]

    /// The album artists by first letter, and when the library last changed (`lastModified`, milliseconds).
    /// `ifModifiedSince` (milliseconds) answers without artists when nothing was added since.
    static func indexes(_ call: SubsonicCall) throws -> SubsonicReply {
        let since = try call.parameters.int("ifModifiedSince", default: 0)
        let modified = try lastModified(call)
        let index = since > 0 && modified <= since ? [] : try BrowsingEndpoints.artistIndex(call)
        return .payload(SubsonicObject {
            $0["indexes"] = SubsonicObject { list in
                list["lastModified"] = modified
                list["ignoredArticles"] = BrowsingEndpoints.ignoredArticles
                list["index"] = index
            }
        })
    }

    /// When the newest album came in, in milliseconds since 1970: albums are what folders hold, so a new one is
    /// what changes the folders (0 for an empty library).
    static func lastModified(_ call: SubsonicCall) throws -> Int {
        let newest = try call.services.collection.albums(sort: ListSort(.added, .descending), includeDisliked: true,
                                                          offset: 0, limit: 1).first?.addedAt
        return newest.map { Int(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
    }

    /// An artist's folder (their albums, as folders: `isDir`) or an album's (its songs).
    static func directory(_ call: SubsonicCall) throws -> SubsonicReply {
        let text = try call.parameters.required("id")
        let folder: SubsonicObject
        switch try SubsonicID.parse(text, parameter: "id", as: .artist, .album) {
        case .artist(let id): folder = try artistFolder(id, call)
        case .album: folder = try albumFolder(text, call)
        default: throw SubsonicError.notFound("folder \(text)")
        }
        return .payload(SubsonicObject { $0["directory"] = folder })
    }

    private static func artistFolder(_ id: Int64, _ call: SubsonicCall) throws -> SubsonicObject {
        guard let artist = try call.services.collection.artist(id: id) else { throw SubsonicError.notFound("artist ar-\(id)") }
        let albums = try call.services.collection.albums(sort: ListSort(.year), includeDisliked: true, artistID: id)
        return try SubsonicObject { folder in
            folder["id"] = SubsonicID.artist(artist.id)
            folder["name"] = artist.name
            folder["starred"] = try call.items.starred(.artist, artist.id)
            folder["userRating"] = try call.items.rating(.artist, artist.id)
            folder["child"] = try albums.map { try call.items.album($0, legacy: true) }
        }
    }

    private static func albumFolder(_ text: String, _ call: SubsonicCall) throws -> SubsonicObject {
        let album = try BrowsingEndpoints.libraryAlbum(text, call)
        let songs = try call.services.collection.tracks(albumID: album.id)
        return try SubsonicObject { folder in
            folder["id"] = SubsonicID.album(album.id)
            folder["parent"] = try call.items.artistID(named: album.artist).map(SubsonicID.artist)
            folder["name"] = album.title
            folder["starred"] = try call.items.starred(.album, album.id)
            folder["userRating"] = try call.items.rating(.album, album.id)
            folder["playCount"] = try call.items.playCount(of: album)
            folder["child"] = try songs.map { try call.items.song($0) }
        }
    }
}
