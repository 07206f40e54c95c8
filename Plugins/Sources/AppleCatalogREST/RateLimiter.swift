import Foundation

/// At most `limit` requests in any `window` (at 20 per second: 20 in any second), shared by every request
/// of one client; a 429 pauses everything. Why a sliding window rather than requests spaced `1/rate`
/// apart: a wall or a genre feed asks for 10–16 things at once, and spacing them made that parallel fetch
/// take eight round trips (Benchmarks/feeds.sh); in a window such a burst leaves together, while no second
/// ever sees more than the rate (Apple throttles per developer team, so the average is what matters to
/// every other user of the key).
///
/// The window counts grants, made at the moment of sending: a caller asks `take`, and sleeps for what it
/// answers until it answers nil. Apple sees arrivals, not grants, and a burst that reuses warm connections
/// can arrive faster than the one a second before it did: the window is a tenth longer than a second's
/// worth so that such jitter cannot put more than the rate into one of Apple's seconds.
struct RequestWindow: Sendable {
    let limit: Int
    let window: Duration
    /// The newest grants, oldest first; at most `limit`.
    private(set) var granted: [ContinuousClock.Instant] = []
    private(set) var pausedUntil: ContinuousClock.Instant?

    /// `rate` requests a second; a rate below 1 (0.5) becomes one request per `1/rate` seconds; 0 or less
    /// is unlimited. `margin`: how much longer than exact the window is.
    init(rate: Double, margin: Double = 0.1) {
        if rate > 0 && rate.isFinite {
            limit = max(1, Int(rate.rounded(.down)))
            window = .seconds(Double(limit) / rate * (1 + max(0, margin)))
        } else {
            limit = .max
            window = .zero
        }
    }

    var unlimited: Bool { limit == .max }

    /// Takes up the state another process left (see `SharedRequestWindow`), keeping the newest `limit` grants.
    mutating func restore(pausedUntil: ContinuousClock.Instant?, granted: [ContinuousClock.Instant]) {
        self.pausedUntil = pausedUntil
        self.granted = Array(granted.sorted().suffix(limit))
    }

    /// Grants a request now and returns nil, or says how long until asking again may succeed.
    mutating func take(now: ContinuousClock.Instant = .now) -> Duration? {
        guard !unlimited else { return nil }
        if let pausedUntil, now < pausedUntil { return pausedUntil - now }
        let window = window
        granted.removeAll { now - $0 >= window }
        guard granted.count >= limit, let oldest = granted.first else {
            granted.append(now)
            return nil
        }
        return oldest + window - now
    }

    /// After a 429: nobody sends before `until`.
    mutating func pause(until: ContinuousClock.Instant) {
        pausedUntil = max(pausedUntil ?? until, until)
    }
}
