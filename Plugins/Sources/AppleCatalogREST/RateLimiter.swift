import Foundation

/// A token bucket shared by every request of one client. Its capacity is one token by default, so
/// requests leave at least `1/rate` apart and no one-second window sees more than `rate` of them:
/// Apple throttles per developer team, and a burst from one machine would hurt every other user of
/// the same key. A 429 pauses the whole bucket, not just the request that got it.
///
/// Two steps: `reserve` gives each caller a place in line (waiters wake one interval apart instead of
/// all at once), and `take` checks the bucket again at the moment of sending. The second step is what
/// keeps the rate when wake-ups come late and bunch up (a busy machine).
struct TokenBucket: Sendable {
    let rate: Double
    let capacity: Double
    private var tokens: Double
    private var refilled: ContinuousClock.Instant
    private var lineEnd: ContinuousClock.Instant
    private var pausedUntil: ContinuousClock.Instant?

    init(rate: Double, capacity: Double = 1, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.capacity = max(1, capacity)
        tokens = self.capacity
        refilled = now
        lineEnd = now
    }

    private var unlimited: Bool { !(rate > 0 && rate.isFinite) }
    private var interval: Duration { .seconds(1 / rate) }

    /// How long to wait before trying to `take`: callers line up one interval apart.
    mutating func reserve(now: ContinuousClock.Instant = .now) -> Duration {
        guard !unlimited else { return .zero }
        let start = max(now, lineEnd, pausedUntil ?? now)
        lineEnd = start + interval
        return start - now
    }

    /// Takes a token and returns nil, or says how long until one is there.
    mutating func take(now: ContinuousClock.Instant = .now) -> Duration? {
        guard !unlimited else { return nil }
        if let pausedUntil, now < pausedUntil { return pausedUntil - now }
        let elapsed = now - refilled
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(capacity, tokens + max(0, seconds) * rate)
        refilled = max(refilled, now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return .seconds((1 - tokens) / rate)
    }

    /// After a 429: nobody sends before `until`.
    mutating func pause(until: ContinuousClock.Instant) {
        pausedUntil = max(pausedUntil ?? until, until)
    }
}
