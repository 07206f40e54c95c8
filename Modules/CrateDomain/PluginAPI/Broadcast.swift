public import Foundation
import Synchronization

/// One encoded stream fanned out to many listeners: the stream output encodes once and `send`s its pages here; each
/// HTTP listener reads its own queue. A listener that joins gets the current stream headers first (the Ogg Opus
/// head and tags of the track playing), then the pages from that moment on — whole pages, so it starts at a page
/// boundary. A listener that falls more than `lagLimit` bytes behind (stopped reading, or too slow a network) is let
/// go: the broadcast never waits for anyone, so neither does the player.
public final class Broadcast: Sendable {
    /// Where crated serves it: `/stream.opus`.
    public let path: String
    public let contentType: String
    public let lagLimit: Int
    public let maxListeners: Int
    private let state = Mutex(State())

    private struct State {
        var headers = Data()
        var listeners: [ObjectIdentifier: BroadcastListener] = [:]
        var joined = 0
    }

    public init(path: String, contentType: String, lagLimit: Int, maxListeners: Int) {
        self.path = path
        self.contentType = contentType
        self.lagLimit = lagLimit
        self.maxListeners = maxListeners
    }

    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Listeners that joined since the daemon started, for status.
    public var joinedCount: Int { state.withLock { $0.joined } }

    /// A new stream within the broadcast (a new track's chained Ogg stream): its headers go to every listener now
    /// and to each one that joins later.
    public func begin(headers: Data) {
        let everyone = state.withLock { s -> [BroadcastListener] in
            s.headers = headers
            return Array(s.listeners.values)
        }
        for listener in everyone { listener.push(headers, limit: Int.max) }
    }

    /// Pages of the current stream, to every listener.
    public func send(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        let everyone = state.withLock { Array($0.listeners.values) }
        for listener in everyone where !listener.push(bytes, limit: lagLimit) {
            remove(listener)
        }
    }

    /// A new listener, or nil when `maxListeners` are listening already.
    public func listen() -> BroadcastListener? {
        state.withLock { s -> BroadcastListener? in
            guard s.listeners.count < maxListeners else { return nil }
            let listener = BroadcastListener(owner: self)
            if !s.headers.isEmpty { listener.push(s.headers, limit: Int.max) }
            s.listeners[ObjectIdentifier(listener)] = listener
            s.joined += 1
            return listener
        }
    }

    /// Ends every listener's stream: the daemon stops, or the output was switched off.
    public func finish(_ reason: String = "the daemon is stopping") {
        let everyone = state.withLock { s -> [BroadcastListener] in
            defer { s.listeners.removeAll() }
            return Array(s.listeners.values)
        }
        for listener in everyone { listener.end(reason) }
    }

    fileprivate func remove(_ listener: BroadcastListener) {
        _ = state.withLock { $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }
}

/// One listener's queue of bytes, read by the connection that serves it.
public final class BroadcastListener: Sendable {
    private weak let owner: Broadcast?
    private let state = Mutex(State())

    private struct State {
        var pending: [Data] = []
        var bytes = 0
        var ended: String?
        var waiter: CheckedContinuation<Data?, Never>?
        /// Who waits for the end (`ended()`): the connection's watch on a write the socket holds up.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    fileprivate init(owner: Broadcast) { self.owner = owner }

    /// Why the stream ended for this listener ("fell behind …", "left", the reason `finish` gave), nil while it runs.
    public var endReason: String? { state.withLock { $0.ended } }

    /// The bytes queued since the last call, waiting for some when there are none; nil when the stream has ended
    /// for this listener. Cancelling the waiting task ends it.
    public func next() async -> Data? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Data?, Never>) in
                let ready = state.withLock { s -> Data?? in
                    if !s.pending.isEmpty {
                        let joined = s.pending.count == 1 ? s.pending[0] : s.pending.reduce(into: Data()) { $0.append($1) }
                        s.pending.removeAll(keepingCapacity: true)
                        s.bytes = 0
                        return .some(joined)
                    }
                    if s.ended != nil { return .some(nil) }
                    s.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// Let go for falling behind (the others were not waited for).
    public var fellBehind: Bool { state.withLock { $0.ended?.hasPrefix(Self.behind) == true } }
    static let behind = "fell behind"

    /// Returns when the stream has ended for this listener (let go, left, or the daemon stopping).
    public func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let over = state.withLock { s -> Bool in
                if s.ended != nil { return true }
                s.endWaiters.append(continuation)
                return false
            }
            if over { continuation.resume() }
        }
    }

    /// Leaves the broadcast (the connection closed).
    public func close() {
        end("left")
        owner?.remove(self)
    }

    /// Queues `bytes`; false (and the stream ended) when the queue would pass `limit`.
    @discardableResult
    fileprivate func push(_ bytes: Data, limit: Int) -> Bool {
        let (waiter, delivered, kept) = state.withLock { s -> (CheckedContinuation<Data?, Never>?, Data?, Bool) in
            guard s.ended == nil else { return (nil, nil, false) }
            if let waiter = s.waiter {
                s.waiter = nil
                return (waiter, bytes, true)
            }
            guard s.bytes + bytes.count <= limit else { return (nil, nil, false) }
            s.pending.append(bytes)
            s.bytes += bytes.count
            return (nil, nil, true)
        }
        if let waiter { waiter.resume(returning: delivered) }
        if !kept { end("\(Self.behind) by more than \(limit / 1024) KiB") }
        return kept
    }

    /// Ends the stream for this listener once, waking whoever waits for bytes or for the end.
    fileprivate func end(_ reason: String) {
        let (waiter, endWaiters) = state.withLock { s -> (CheckedContinuation<Data?, Never>?, [CheckedContinuation<Void, Never>]) in
            if s.ended == nil { s.ended = reason }
            s.pending.removeAll()
            s.bytes = 0
            defer {
                s.waiter = nil
                s.endWaiters.removeAll()
            }
            return (s.waiter, s.endWaiters)
        }
        waiter?.resume(returning: nil)
        for w in endWaiters { w.resume() }
    }
}
