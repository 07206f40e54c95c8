public import Hummingbird
import Logging
import ServiceLifecycle

/// A real Hummingbird server on 127.0.0.1, on a port the system chose, for tests of what a router or responder
/// answers over a real connection.
public final class LoopbackServer: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// A client of this server: each request on a connection of its own.
    public var client: LoopbackClient { LoopbackClient(port: port) }

    /// Starts serving `responder`; returns once the server listens.
    public static func start<Responder: HTTPResponder>(_ responder: Responder) async throws -> LoopbackServer
    where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        var app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  announce.yield(channel.localAddress?.port ?? 0)
                                  announce.finish()
                              })
        // Shutting a server down mid-request logs errors that are expected in tests.
        app.logger.logLevel = .critical
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: app.logger))
        let task = Task {
            // A server that cannot start ends the wait below with no port, not a hang.
            defer { announce.finish() }
            try await group.run()
        }
        var port = 0
        for await announced in ports { port = announced }
        guard port > 0 else {
            await group.triggerGracefulShutdown()
            let reason = await task.result.failure.map { String(describing: $0) } ?? "it stopped before listening"
            throw LoopbackServerError(description: "the test server did not start on 127.0.0.1: \(reason)")
        }
        return LoopbackServer(port: port, group: group, task: task)
    }

    /// A graceful shutdown, not a cancellation: cancelling the server while NIO holds an accepted connection it has not
    /// yet handed over traps in NIO ("Deinited NIOAsyncWriter without calling finish()", swift-nio#3481).
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// Serves `router` on 127.0.0.1 while `body` runs with a client of it, then stops the server (also when `body` throws).
public func withLoopbackServer<Builder: HTTPResponderBuilder>(_ router: Builder, _ body: (LoopbackClient) async throws -> Void) async throws
where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let server = try await LoopbackServer.start(router.buildResponder())
    do {
        try await body(server.client)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

public struct LoopbackServerError: Error, CustomStringConvertible {
    public let description: String
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
