import CrateCore
import CrateDomain
import Foundation
import Hummingbird

/// What Subsonic servers fetch from Last.fm about an artist or album. Crate keeps no biographies, notes or similar
/// artists, so those stay empty; the pictures are its own, as `getCoverArt` links.
enum InfoEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getArtistInfo2": .signedIn { try artistInfo($0, key: "artistInfo2") },
        "getArtistInfo": .signedIn { try artistInfo($0, key: "artistInfo") },
        "getAlbumInfo2": .signedIn(albumInfo),
        "getAlbumInfo": .signedIn(albumInfo),
    ]

    /// An artist's info: an empty biography and their picture (their first album's cover) in three sizes.
    static func artistInfo(_ call: SubsonicCall, key: String) throws -> SubsonicReply {
        let id = try SubsonicID.parse(try call.parameters.required("id"), parameter: "id", as: .artist).number
        guard try call.services.collection.artist(id: id) != nil else { throw SubsonicError.notFound("artist ar-\(id)") }
        let albums = try call.services.collection.albums(sort: ListSort(.year), includeDisliked: true, artistID: id)
        let hasPicture = albums.contains { $0.artworkHash != nil }
        return .payload(SubsonicObject {
            $0[key] = SubsonicObject { info in
                info["biography"] = ""
                if hasPicture { addPictures(of: SubsonicID.artist(id), to: &info, call) }
            }
        })
    }

    /// An album's info (answered as `albumInfo` by both endpoints, as the spec has it): empty notes and its cover.
    static func albumInfo(_ call: SubsonicCall) throws -> SubsonicReply {
        let album = try BrowsingEndpoints.libraryAlbum(try call.parameters.required("id"), call)
        return .payload(SubsonicObject {
            $0["albumInfo"] = SubsonicObject { info in
                info["notes"] = ""
                if album.artworkHash != nil { addPictures(of: SubsonicID.album(album.id), to: &info, call) }
            }
        })
    }

    /// The pixel sizes of `smallImageUrl`, `mediumImageUrl` and `largeImageUrl`.
    static let pictureSizes = [("smallImageUrl", 300), ("mediumImageUrl", 600), ("largeImageUrl", 1200)]

    private static func addPictures(of id: String, to info: inout SubsonicObject, _ call: SubsonicCall) {
        for (field, size) in pictureSizes { info[field] = coverURL(id, size: size, call) }
    }

    /// A `getCoverArt` link an app can load as it is. Apps load these like any picture on the web, without adding
    /// credentials, so the link carries the ones this request signed in with (a token and its salt, the API key,
    /// or the password as `enc:` hex), as the stream links apps make themselves do. It points where the request
    /// came: the Host it named, behind a proxy the forwarded host and scheme. Nil when the request named no host.
    static func coverURL(_ id: String, size: Int, _ call: SubsonicCall) -> String? {
        let headers = call.request.headers
        func header(_ name: String) -> String? {
            HTTPFields.Element.Name(name).flatMap { headers[$0] }?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        // A host name, an IPv4 or [IPv6] address and a port; anything else (a forged header) makes no link.
        guard let host = header("X-Forwarded-Host") ?? call.request.head.authority ?? header("Host"), !host.isEmpty,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }) else { return nil }
        let scheme = header("X-Forwarded-Proto").flatMap { ["http", "https"].contains($0.lowercased()) ? $0.lowercased() : nil } ?? "http"
        let pairs = [("id", id), ("size", String(size))] + credentials(call.parameters)
        return "\(scheme)://\(host)/rest/getCoverArt?" + pairs.map { "\($0.0)=\(escape($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A query value escaped for a URL: only the unreserved characters stay as they are (not `&`, `=` or `+`).
    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// The sign-in parameters of this request, for a link made for the same app.
    private static func credentials(_ p: SubsonicParameters) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if let key = p.string("apiKey") {
            pairs.append(("apiKey", key))
        } else if let user = p.string("u") {
            pairs.append(("u", user))
            if let token = p.string("t"), let salt = p.string("s") {
                pairs += [("t", token), ("s", salt)]
            } else if let password = p.string("p") {
                // Hex, so the password is not readable at a glance where the link is shown or kept.
                pairs.append(("p", password.hasPrefix("enc:") ? password : "enc:" + password.utf8.map { String(format: "%02x", $0) }.joined()))
            }
        }
        pairs.append(("v", SubsonicEnvelope.apiVersion))
        pairs.append(("c", p.string("c") ?? "crate"))
        return pairs
    }
}
