import CrateAPI
import CrateCore
public import CrateDomain
import Foundation
public import Hummingbird
import NIOCore

/// The player's outputs under /api/v1 (listed, switched on and off) and what the stream outputs broadcast, served at
/// their own paths (`/stream.opus`) to browsers, phones and players (Docs/HTTP_API.md, Docs/MULTIROOM.md).
enum OutputRoutes {
    static func add(to router: Router<BasicRequestContext>, api: RouterGroup<BasicRequestContext>, player: PlayerService) {
        api.get("outputs") { _, _ in player.outputStates() }
        api.post("outputs/:name") { request, context in
            guard let name = context.parameters.get("name") else {
                throw APIError(.badRequest, code: "bad_request", "name the output: POST /api/v1/outputs/NAME")
            }
            let body = try await request.decode(as: API.OutputSwitch.self, context: context)
            return try await player.setOutput(name, enabled: body.enabled)
        }
        for broadcast in player.broadcasts {
            let name = player.outputStates().first { $0.listenPath == broadcast.path }?.name ?? "stream"
            router.get(RouterPath(broadcast.path)) { _, _ in
                guard player.outputStates().first(where: { $0.name == name })?.enabled == true else {
                    throw APIError(.serviceUnavailable, code: "output_off",
                                   "the \(name) output is switched off: POST /api/v1/outputs/\(name) {\"enabled\": true}")
                }
                guard let listener = broadcast.listen() else {
                    throw APIError(.serviceUnavailable, code: "too_many_listeners",
                                   "\(broadcast.maxListeners) listeners are listening already (outputs.\(name).max_listeners)")
                }
                return listen(listener, contentType: broadcast.contentType)
            }
        }
    }

    /// The broadcast from now on, until the listener leaves, falls too far behind, or the daemon stops. A listener
    /// that stops reading blocks its own write only; when the broadcast lets it go, the write is cancelled and the
    /// connection closed, so it holds nothing of the daemon's.
    static func listen(_ listener: BroadcastListener, contentType: String) -> Response {
        let body = ResponseBody { writer in
            defer { listener.close() }
            // The write runs in a child task so that it can be cancelled while a full socket holds it.
            nonisolated(unsafe) var out = writer
            let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    // However this ends (the stream over, the socket gone, cancelled), the watch below ends too.
                    defer { listener.close() }
                    while let bytes = await listener.next() {
                        try await out.write(ByteBuffer(bytes: bytes))
                    }
                    return true
                }
                group.addTask {
                    // Let go by the broadcast while the write above may be stuck: stop waiting for it.
                    await listener.ended()
                    return !listener.fellBehind
                }
                defer { group.cancelAll() }
                return try await group.next() ?? true
            }
            // One that fell behind may have a write stuck in a full socket: the connection is closed, not finished.
            guard ended else { throw CancellationError() }
            try await writer.finish(nil)
        }
        // No length and no caching: a live stream. `icy-name` for players that show a station name.
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache, no-store"], body: body)
    }
}

extension OutputState: ResponseEncodable {}
