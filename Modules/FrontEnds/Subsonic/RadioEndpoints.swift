import CrateCore
import CrateDomain
import Foundation
import Logging

/// Editing Crate's internet radio stations (admins only: the stations are the household's, shared with the web
/// page and MPD). Listing them is `getInternetRadioStations` (ListEndpoints). `homepageUrl` is accepted and not
/// kept: Crate's stations have no homepage.
enum RadioEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "createInternetRadioStation": .admin(create),
        "updateInternetRadioStation": .admin(update),
        "deleteInternetRadioStation": .admin(delete),
    ]

    static func create(_ call: SubsonicCall) throws -> SubsonicReply {
        let url = try call.parameters.required("streamUrl"), name = try call.parameters.required("name")
        let station = try call.services.collection.addStation(name: name, url: url)
        call.services.logger.info("subsonic: \(call.account.name) added the station '\(station.name)'")
        return .ok
    }

    /// Core has no way to change a station in place, so an update removes it and adds it anew with the new name and
    /// URL: it gets a new id (`st-`), and leaves the queue, playlists and favorites it was in, as a removal does.
    /// Everything is checked first, so a refused update leaves the station as it was.
    static func update(_ call: SubsonicCall) throws -> SubsonicReply {
        let p = call.parameters, collection = call.services.collection
        let id = try SubsonicID.parse(try p.required("id"), parameter: "id", as: .station).number
        let url = try p.required("streamUrl")
        let name = try p.required("name").trimmingCharacters(in: .whitespaces)
        guard let old = try collection.station(id: id) else { throw SubsonicError.notFound("station st-\(id)") }
        _ = try Station.streamURL(url)
        guard !name.isEmpty else { throw SubsonicError.invalid("name", name, expected: "a station needs a name") }
        if try collection.stations().contains(where: { $0.id != id && $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
            throw StationError.exists(name)
        }
        guard old.name != name || old.url != url else { return .ok }
        try collection.removeStation(id: id)
        do {
            _ = try collection.addStation(name: name, url: url, artworkURL: old.artworkURL)
        } catch {
            // Put the station back as it was, so a failure loses nothing.
            _ = try? collection.addStation(name: old.name, url: old.url, artworkURL: old.artworkURL)
            throw error
        }
        call.services.logger.info("subsonic: \(call.account.name) changed the station '\(old.name)' to '\(name)'")
        return .ok
    }

    static func delete(_ call: SubsonicCall) throws -> SubsonicReply {
        let id = try SubsonicID.parse(try call.parameters.required("id"), parameter: "id", as: .station).number
        guard let station = try call.services.collection.station(id: id) else { throw SubsonicError.notFound("station st-\(id)") }
        try call.services.collection.removeStation(id: id)
        call.services.logger.info("subsonic: \(call.account.name) removed the station '\(station.name)'")
        return .ok
    }
}
