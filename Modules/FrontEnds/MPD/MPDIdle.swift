import NIOCore
import Synchronization

/// One connection's `idle`: the subsystems it waits for and the changes it has not been told of, shared under one
/// lock by its session (the client's `idle` and `noidle`) and the hub (the daemon's changes). The hub answers a
/// waiting idle itself, with a reply made once per change for every connection waiting on the same subsystems, and
/// `write` puts it on the connection's event loop in order with everything else the connection is sent. A change
/// used to resume one task per connection to do that: with 200 clients in `idle` that was most of the time to wake
/// them (Benchmarks/mpd.sh, issue 30).
final class MPDIdle: Sendable {
    private struct State {
        /// While idle: the subsystems waited for (empty: all).
        var waiting: Set<String>?
        /// Changes not yet reported by an `idle`.
        var pending: Set<String> = []
    }

    private let state = Mutex(State())
    private let write: @Sendable (ByteBuffer) -> Void

    /// `write` sends an idle's answer when a change ends it; it is called under the lock, so the answer is queued
    /// before anything the session sends after it.
    init(write: @escaping @Sendable (ByteBuffer) -> Void) {
        self.write = write
    }

    var isWaiting: Bool { state.withLock { $0.waiting != nil } }

    /// `idle`: the answer at once when a change it waits for is pending; else nil, and the hub answers later.
    func wait(for wanted: Set<String>) -> String? {
        state.withLock { s in
            let hits = Self.hits(wanted, s.pending)
            guard !hits.isEmpty else {
                s.waiting = wanted
                return nil
            }
            // As MPD: an idle that ends drops every pending change, also those it did not wait for.
            s.pending = []
            return Self.answer(hits)
        }
    }

    /// `noidle`: the idle's answer, or nil when there is no idle to end (a change has answered it already; MPD then
    /// answers nothing, and ncmpcpp counts on that).
    func end() -> String? {
        state.withLock { s in
            guard let wanted = s.waiting else { return nil }
            s.waiting = nil
            let hits = Self.hits(wanted, s.pending)
            s.pending = []
            return Self.answer(hits)
        }
    }

    /// A change in the daemon: kept for the next `idle`, or the answer to the one waiting. `answers` holds the
    /// answers made so far for this change, by the subsystems they name.
    func changed(_ subsystems: [String], answers: inout [Set<String>: ByteBuffer]) {
        state.withLock { s in
            s.pending.formUnion(subsystems)
            guard let wanted = s.waiting else { return }
            let hits = Self.hits(wanted, s.pending)
            guard !hits.isEmpty else { return }
            s.waiting = nil
            s.pending = []
            let answer = answers[hits] ?? ByteBuffer(string: Self.answer(hits))
            answers[hits] = answer
            write(answer)
        }
    }

    private static func hits(_ wanted: Set<String>, _ pending: Set<String>) -> Set<String> {
        wanted.isEmpty ? pending : pending.intersection(wanted)
    }

    /// `changed:` lines, then `OK`.
    private static func answer(_ hits: Set<String>) -> String {
        hits.sorted().map { "changed: \($0)\n" }.joined() + "OK\n"
    }
}
