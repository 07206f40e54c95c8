import NIOCore
import Synchronization

/// Every connection's `NIOAsyncChannel`, held from the moment the listener makes it until the accept loop claims it.
///
/// NIO traps ("Deinited NIOAsyncWriter without calling finish()") when an accepted connection's `NIOAsyncChannel` goes
/// away without `executeThenClose`, and the listener's stream drops the ones it made but had not handed over when it
/// ends, whether by cancellation or by closing the listener (swift-nio#3481). A client connecting while crated
/// stopped brought it down that way, before it saved the player. Held here, none goes away unclaimed: the loop closes
/// what is left when it ends, and one made later still is held until the process exits.
final class AcceptedConnections: Sendable {
    typealias Connection = NIOAsyncChannel<String, ByteBuffer>
    private let unclaimed = Mutex<[ObjectIdentifier: Connection]>([:])

    /// Called where the listener makes the connection's channel (its initializer).
    func hold(_ connection: Connection) {
        unclaimed.withLock { $0[ObjectIdentifier(connection.channel)] = connection }
    }

    /// The accept loop takes the connection over.
    func claim(_ connection: Connection) {
        _ = unclaimed.withLock { $0.removeValue(forKey: ObjectIdentifier(connection.channel)) }
    }

    /// Those never handed over, once the listener is closed: to be closed through `executeThenClose`.
    func leftOver() -> [Connection] {
        unclaimed.withLock { held in defer { held.removeAll() }; return Array(held.values) }
    }
}
