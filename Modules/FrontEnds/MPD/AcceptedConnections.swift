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
    /// An admitted connection's idle, registered with the hub from the moment it was accepted.
    struct Admission: Sendable {
        let idle: MPDIdle
        let registration: UInt64
    }

    private let unclaimed = Mutex<[ObjectIdentifier: (connection: Connection, admission: Admission?)]>([:])

    /// Called where the listener makes the connection's channel (its initializer), which also admits it (within the
    /// connection limit) or not (nil: to be closed).
    func hold(_ connection: Connection, _ admission: Admission?) {
        unclaimed.withLock { $0[ObjectIdentifier(connection.channel)] = (connection, admission) }
    }

    /// The accept loop takes the connection over: its admission, nil when it is to be closed.
    func claim(_ connection: Connection) -> Admission? {
        unclaimed.withLock { $0.removeValue(forKey: ObjectIdentifier(connection.channel))?.admission }
    }

    /// Those never handed over, once the listener is closed: to be closed through `executeThenClose`.
    func leftOver() -> [(connection: Connection, admission: Admission?)] {
        unclaimed.withLock { held in defer { held.removeAll() }; return Array(held.values) }
    }
}
