import CrateCore
import CrateDomain
import Foundation
import Logging
import NIOCore
import NIOPosix

/// crated's MPD protocol front end (Docs/MPD.md): a SwiftNIO listener on `mpd.address`; each connection is a
/// `MPDSession` fed by its request lines, with an `MPDIdle` the daemon's changes reach (for `idle`).
struct MPDServer: Sendable {
    let settings: MPDSettings
    let commands: MPDCommands
    let events: EventBus
    let logger: Logger
    /// Connections served at once; more are closed at once (as http.max_connections does for HTTP).
    let maxConnections: Int

    typealias Listener = NIOAsyncChannel<NIOAsyncChannel<String, ByteBuffer>, Never>
    /// The listener's connections until the accept loop claims them (see `AcceptedConnections`).
    let accepted = AcceptedConnections()
    /// The connections admitted and not yet ended.
    let open = ConnectionCount()
    /// The daemon's changes, for every admitted connection's `idle`.
    let hub = MPDIdleHub()

    /// Binds the address; throws when it cannot (another MPD may hold port 6600).
    func bind() async throws -> Listener {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(host: settings.host, port: settings.port) { [accepted, open, hub, maxConnections] channel in
                channel.eventLoop.makeCompletedFuture {
                    // Admitted (or refused), greeted and told of the daemon's changes where the connection is
                    // accepted, on its event loop: the greeting waits for no task to start (mpc connects afresh for
                    // every command), and no change after it is missed by the client's first `idle`.
                    var admission: AcceptedConnections.Admission?
                    if open.enter(limit: maxConnections) {
                        try channel.pipeline.syncOperations.addHandler(MPDGreeting())
                        // Everything the connection is sent, answers and idle answers alike, is queued on its event
                        // loop in the order it is made (see `MPDIdle`).
                        let idle = MPDIdle { answer in channel.eventLoop.execute { channel.writeAndFlush(answer, promise: nil) } }
                        admission = .init(idle: idle, registration: hub.add(idle))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MPDLineDecoder()))
                    let connection = try NIOAsyncChannel<String, ByteBuffer>(wrappingChannelSynchronously: channel)
                    accepted.hold(connection, admission)
                    return connection
                }
            }
    }

    /// Serves until the listener is closed (the daemon's graceful shutdown, see `MPDFrontEnd`), then ends the
    /// connections, those accepted but never handed over too (`AcceptedConnections`).
    func serve(_ listener: Listener) async {
        // The database is read again after the library changed, before any client hears of the change. (The
        // playlist version is the player's own queue version: it has changed before the command that changed the
        // queue answers.)
        let changes = Task { [events, commands] in
            await hub.run(events) { event, subsystems in
                if subsystems.contains("database") { commands.database.invalidate() }
            }
        }
        defer { changes.cancel() }
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        guard let admission = accepted.claim(connection) else {
                            logger.warning("mpd: more than \(maxConnections) connections; one refused")
                            try? await connection.executeThenClose { _, _ in }
                            continue
                        }
                        group.addTask(executorPreference: EventLoopTaskExecutor(connection.channel.eventLoop)) {
                            defer { open.leave() }
                            await handle(connection, admission)
                        }
                    }
                }
                // The listener is closed: the connections end (their reads are cancelled, each closes itself), and
                // so do those it made but never handed over.
                group.cancelAll()
                for (connection, admission) in accepted.leftOver() {
                    if let admission { hub.remove(admission.registration) }
                    try? await connection.executeThenClose { _, _ in }
                }
            }
        } catch {
            logger.warning("mpd: the listener stopped: \(ErrorText.describe(error))")
        }
    }

    private func handle(_ connection: NIOAsyncChannel<String, ByteBuffer>, _ admission: AcceptedConnections.Admission) async {
        defer { hub.remove(admission.registration) }
        do {
            try await connection.executeThenClose { inbound, _ in
                let channel = connection.channel
                /// Waits until the bytes are written: a client that does not read holds its own connection back.
                func send(_ buffer: ByteBuffer) async throws {
                    let written = channel.eventLoop.makePromise(of: Void.self)
                    channel.eventLoop.execute { channel.writeAndFlush(buffer, promise: written) }
                    try await written.futureResult.get()
                }
                var session = MPDSession(commands: commands, settings: settings, idle: admission.idle)
                for try await line in inbound {
                    let reply = await session.take(line)
                    if !reply.bytes.isEmpty { try await send(ByteBuffer(bytes: reply.bytes)) }
                    if reply.close { break }
                }
            }
        } catch {
            logger.debug("mpd: a connection ended: \(ErrorText.describe(error))")
        }
    }
}

/// Writes the protocol's greeting as soon as the connection is active, before anything the session answers.
private final class MPDGreeting: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "OK MPD \(MPDSession.protocolVersion)\n")), promise: nil)
        context.fireChannelActive()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Request lines: up to a line feed (a carriage return before it dropped), decoded as UTF-8. A line longer than
/// 64 KiB ends the connection (MPD's own limit is about as large).
struct MPDLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = String
    static let maximumLine = 64 * 1024

    struct LineTooLong: Error, CustomStringConvertible {
        var description: String { "a request line longer than \(MPDLineDecoder.maximumLine) bytes" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLine { throw LineTooLong() }
            return .needMoreData
        }
        guard var line = buffer.readString(length: newline - buffer.readerIndex) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}

/// The connections open now.
final class ConnectionCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func enter(limit: Int) -> Bool {
        lock.withLock {
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() { lock.withLock { count -= 1 } }
}
