import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird
import NIOCore
import ServiceLifecycle

/// Player, queue, history and the event stream under /api/v1 (see Docs/HTTP_API.md).
/// Commands answer with the player status after the command.
enum PlayerRoutes {
    struct QueuePage: ResponseEncodable { var total: Int; var offset: Int; var entries: [QueueEntry] }
    struct Added: ResponseEncodable { var entryIDs: [Int64]; var status: PlayerStatus }

    static func add(to api: RouterGroup<BasicRequestContext>, player: PlayerService, store runtime: CrateRuntime, eventClients: EventClients) {
        api.get("player") { _, _ in try await player.status() }
        api.post("player/play") { request, context in
            let body = try await optionalBody(API.Play.self, request, context)
            try await player.play(index: body?.index)
            return try await player.status()
        }
        api.post("player/pause") { _, _ in await player.pause(); return try await player.status() }
        api.post("player/toggle") { _, _ in try await player.toggle(); return try await player.status() }
        api.post("player/stop") { _, _ in await player.stop(); return try await player.status() }
        api.post("player/next") { _, _ in try await player.next(); return try await player.status() }
        api.post("player/previous") { _, _ in try await player.previous(); return try await player.status() }
        api.post("player/seek") { request, context in
            let body = try await request.decode(as: API.Seek.self, context: context)
            if let delta = body.delta { try await player.seek(to: delta, relative: true) } else if let position = body.position {
                try await player.seek(to: position)
            } else { throw APIError(.badRequest, code: "bad_request", "give \"position\" or \"delta\" in seconds") }
            return try await player.status()
        }
        api.post("player/volume") { request, context in
            let body = try await request.decode(as: API.Volume.self, context: context)
            if let delta = body.delta { await player.setVolume(delta, relative: true) } else if let value = body.value {
                guard (0...100).contains(value) else { throw APIError(.badRequest, code: "bad_request", "volume is 0–100") }
                await player.setVolume(value)
            } else { throw APIError(.badRequest, code: "bad_request", "give \"value\" (0–100) or \"delta\"") }
            return try await player.status()
        }
        api.put("player/options") { request, context in
            let body = try await request.decode(as: API.Modes.self, context: context)
            if let mode = body.repeat { try await player.setRepeat(mode) }
            if let on = body.shuffle { try await player.setShuffle(on) }
            if let on = body.stopAfterAlbum { try await player.setStopAfterAlbum(on) }
            if let mode = body.stopAfterTrack { try await player.setStopAfterTrack(mode) }
            if let mode = body.loudness { try await player.setLoudnessMode(mode) }
            return try await player.status()
        }

        api.get("queue") { request, _ in
            let offset = FormQuery(request).get("offset", as: Int.self) ?? 0
            let limit = min(FormQuery(request).get("limit", as: Int.self) ?? 500, 10_000)
            return QueuePage(total: try runtime.collection.queueCount(), offset: offset,
                             entries: try await player.queue(offset: offset, limit: limit))
        }
        api.post("queue") { request, context in
            let body = try await request.decode(as: API.QueueAdd.self, context: context)
            let ids = try runtime.collection.trackIDs(body.trackIDs, albumID: body.albumID)
            guard !ids.isEmpty else { throw APIError(.badRequest, code: "bad_request", "give \"trackIDs\" or an \"albumID\" with tracks") }
            let added = try await player.add(ids, mode: body.mode ?? .end, at: body.index)
            return Added(entryIDs: added, status: try await player.status())
        }
        api.post("queue/play-album") { request, context in
            let body = try await request.decode(as: API.PlayAlbum.self, context: context)
            try await player.playAlbum(body.albumID, from: body.from ?? 1)
            return try await player.status()
        }
        api.post("queue/play-list") { request, context in
            let body = try await request.decode(as: API.PlayList.self, context: context)
            try await player.playList(body.trackIDs, from: (body.index ?? 1) - 1)
            return try await player.status()
        }
        api.post("queue/move") { request, context in
            let body = try await request.decode(as: API.Move.self, context: context)
            try await player.move(from: body.from, to: body.to)
            return try await player.status()
        }
        api.delete("queue/:index") { _, context in
            guard let index = context.parameters.get("index", as: Int.self) else {
                throw APIError(.badRequest, code: "bad_request", "the queue index must be a number")
            }
            try await player.remove(at: index)
            return try await player.status()
        }
        api.delete("queue") { _, _ in try await player.clear(); return try await player.status() }

        api.get("history") { _, _ in try await player.history() }
        api.post("history/:index/play") { _, context in
            guard let index = context.parameters.get("index", as: Int.self) else {
                throw APIError(.badRequest, code: "bad_request", "the history index must be a number")
            }
            try await player.playHistory(index)
            return try await player.status()
        }

        api.get("events") { _, _ in
            guard let slot = eventClients.reserve() else {
                throw APIError(.serviceUnavailable, code: "too_many_event_clients",
                               "\(eventClients.limit) event streams are open already (http.max_event_clients); close one and try again")
            }
            return eventStream(player.events, holding: slot)
        }
    }

    /// Server-Sent Events: `event: <subsystem>` / `data: {"subsystem", "change", "detail", …}`, plus a comment
    /// line every 15 s so proxies and clients see the connection is alive (and a gone client is noticed).
    static func eventStream(_ bus: EventBus, holding slot: EventClients.Slot) -> Response {
        let stream = bus.subscribe()
        let body = ResponseBody { writer in
            // The slot lives as long as this closure: the place is given back when the stream ends.
            withExtendedLifetime(slot) {}
            try await writer.write(ByteBuffer(string: ": crated events\n\n"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (merged, sink) = AsyncStream.makeStream(of: String.self)
                group.addTask {
                    for await event in stream {
                        let data = String(decoding: try JSONEncoder().encode(EventMessage(event)), as: UTF8.self)
                        sink.yield("event: \(event.subsystem)\ndata: \(data)\n\n")
                    }
                    sink.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(15))
                        sink.yield(": keep-alive\n\n")
                    }
                }
                // A stream ends when the daemon shuts down, so a quiet or vanished client never holds it up.
                for await text in merged.cancelOnGracefulShutdown() { try await writer.write(ByteBuffer(string: text)) }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    static func optionalBody<T: Decodable>(_ type: T.Type, _ request: Request, _ context: BasicRequestContext) async throws -> T? {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard buffer.readableBytes > 0 else { return nil }
        do { return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView)) } catch {
            throw APIError(.badRequest, code: "bad_request", "the request body is not valid JSON for this command")
        }
    }
}

extension PlayerStatus: ResponseEncodable {}
extension QueueEntry: ResponseEncodable {}
extension HistoryEntry: ResponseEncodable {}
