import CrateCore
import CrateDomain
import Foundation

/// The server itself: ping, the licence, the extensions, the one music folder, the signed-in user, library scans.
enum SystemEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "ping": .signedIn { _ in .ok },
        // Crate needs no licence; apps that ask are told it is valid.
        "getLicense": .signedIn { _ in .payload(SubsonicObject { $0["license"] = SubsonicObject { $0["valid"] = true } }) },
        "getOpenSubsonicExtensions": .open { extensions },
        "getMusicFolders": .signedIn { _ in
            .payload(SubsonicObject {
                $0["musicFolders"] = SubsonicObject {
                    $0["musicFolder"] = [SubsonicObject { $0["id"] = SubsonicID.musicFolder; $0["name"] = "Music" }]
                }
            })
        },
        "getUser": .signedIn(user),
        "getScanStatus": .signedIn { call in .payload(try scanStatus(call.services)) },
        "startScan": .admin { call in
            do {
                try call.services.jobs.rescan()
            } catch LibraryError.busy {
                // A scan or import is running already: report it, as Subsonic servers do.
            }
            return .payload(try scanStatus(call.services))
        },
    ]

    /// Only what is implemented: API keys, form POSTs, lyrics by song (getLyricsBySongId) and transcoding offsets.
    static var extensions: SubsonicObject {
        SubsonicObject {
            $0["openSubsonicExtensions"] = [
                SubsonicObject { $0["name"] = "apiKeyAuthentication"; $0["versions"] = SubsonicValue.array([.int(1)]) },
                SubsonicObject { $0["name"] = "formPost"; $0["versions"] = SubsonicValue.array([.int(1)]) },
                SubsonicObject { $0["name"] = "songLyrics"; $0["versions"] = SubsonicValue.array([.int(1)]) },
                SubsonicObject { $0["name"] = "transcodeOffset"; $0["versions"] = SubsonicValue.array([.int(1)]) },
            ]
        }
    }

    /// A user's roles. Anyone may read their own; only admins may read others'.
    static func user(_ call: SubsonicCall) throws -> SubsonicReply {
        let name = call.parameters.string("username") ?? call.account.name
        let account: Account
        if name.lowercased() == call.account.name.lowercased() {
            account = call.account
        } else {
            guard call.account.isAdmin else {
                throw SubsonicError(.notAuthorized, "only an admin account may read another user's details")
            }
            guard let found = try call.services.runtime.accounts.account(named: name) else { throw SubsonicError.notFound("user '\(name)'") }
            account = found
        }
        return .payload(SubsonicObject { $0["user"] = userObject(account) })
    }

    static func userObject(_ account: Account) -> SubsonicObject {
        SubsonicObject { user in
            user["username"] = account.name
            user["scrobblingEnabled"] = true
            user["adminRole"] = account.isAdmin
            user["settingsRole"] = account.isAdmin
            user["downloadRole"] = true
            user["uploadRole"] = false
            // Playlists are read-only through this API for now.
            user["playlistRole"] = false
            user["coverArtRole"] = true
            user["commentRole"] = false
            user["podcastRole"] = false
            user["streamRole"] = true
            // What jukeboxControl lets the account do: admins may drive the player too.
            user["jukeboxRole"] = account.jukebox || account.isAdmin
            user["shareRole"] = false
            user["videoConversionRole"] = false
            user["folder"] = SubsonicValue.array([.int(SubsonicID.musicFolder)])
        }
    }

    /// Whether a library scan (a rescan or an import) is running and the files it has looked at; when none runs,
    /// the songs the library holds.
    static func scanStatus(_ services: SubsonicServices) throws -> SubsonicObject {
        let job = services.jobs.job
        let scanning = job?.state == .running && (job?.kind == "rescan" || job?.kind == "import")
        let count = scanning ? job?.progress?.done ?? 0 : try services.collection.counts().tracks
        return SubsonicObject {
            $0["scanStatus"] = SubsonicObject { status in
                status["scanning"] = scanning
                status["count"] = count
            }
        }
    }
}
