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
        api.post("stations/:id/play") { request, context in
            let wait = try await PlayerRoutes.optionalBody(API.PlayStation.self, request, context)?.wait ?? 0
            guard wait > 0 else {
                try await player.playStation(try id(context))
                return try await player.status()
            }
            return try await player.playStation(try id(context), waitSeconds: min(wait, 60))
        }
        api.post("queue/play-url") { request, context in
            let body = try await request.decode(as: API.PlayURL.self, context: context)
            guard let wait = body.wait, wait > 0 else {
                try await player.playURL(body.url)
                return try await player.status()
            }
            return try await player.playURL(body.url, waitSeconds: min(wait, 60))
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
