import CrateAPI
import CrateCore
import CrateDomain
import Foundation
public import Hummingbird

/// Saved stations and stream URLs under /api/v1 (see Docs/HTTP_API.md). Changes publish `library` events (through Core's collection).
enum StationRoutes {

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime, player: PlayerService) {
        let collection = runtime.collection
        api.get("stations") { _, _ in try collection.stations() }
        api.post("stations") { request, context in
            let body = try await request.decode(as: API.StationAdd.self, context: context)
            let station = try collection.addStation(name: body.name, url: body.url, artworkURL: body.artworkURL)
            return EditedResponse(status: .created, response: station)
        }
        api.get("stations/:id") { _, context in
            let id = try id(context)
            guard let station = try collection.station(id: id) else { throw StationError.notFound(String(id)) }
            return station
        }
        api.delete("stations/:id") { _, context in
            let id = try id(context)
            try collection.removeStation(id: id)
            return Response(status: .noContent)
        }
        api.post("stations/:id/play") { _, context in
            try await player.playStation(try id(context))
            return try await player.status()
        }
        api.post("queue/play-url") { request, context in
            try await player.playURL(try await request.decode(as: API.PlayURL.self, context: context).url)
            return try await player.status()
        }
    }

    private static func id(_ context: BasicRequestContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self) else {
            throw APIError(.badRequest, code: "bad_request", "the station id must be a number")
        }
        return id
    }
}

extension Station: ResponseEncodable {}
