import Foundation

/// Keeps an output without a device — the null output, a WAV file — at the sample clock: `write` returns no sooner
/// than a sound card would take it, so a 42-second album takes 42 seconds, history and events come when the music
/// does, and pause and seek mean what they say. Like a device, it may run up to `lead` ahead of what has been
/// "played" (a device's buffer), which keeps the pipeline's own hiccups inaudible.
///
/// When the writer falls behind (a pause, a slow decoder) the clock starts again from the present, as a device after
/// an underrun does, rather than letting the writer rush to catch up.
public struct SampleClock: Sendable {
    public typealias Now = @Sendable () -> ContinuousClock.Instant
    public typealias Sleep = @Sendable (Duration) -> Void

    public let lead: Duration
    private let now: Now
    private let sleep: Sleep
    /// When frame 0 of this run is (was) heard, and the frames written since.
    private var anchor: ContinuousClock.Instant?
    private var frames: Int64 = 0
    private var rate = 0

    /// `now` and `sleep` are the real clock unless a test gives its own.
    public init(lead: Duration = .milliseconds(200),
                now: @escaping Now = { ContinuousClock.now },
                sleep: @escaping Sleep = SampleClock.sleepThread) {
        self.lead = lead
        self.now = now
        self.sleep = sleep
    }

    /// The moment everything written so far has been heard; nil before the first write.
    public var playedOut: ContinuousClock.Instant? {
        anchor.map { $0 + Self.duration(frames: frames, rate: rate) }
    }

    /// Counts `count` frames at `rate` Hz as written, then blocks while the written audio is more than `lead` ahead
    /// of the present.
    public mutating func wrote(frames count: Int, rate: Int) {
        guard count > 0, rate > 0 else { return }
        let present = now()
        if rate != self.rate || anchor == nil {
            start(at: present, rate: rate)
        } else if let end = playedOut, end < present {
            // Underrun: what was written has all been heard; the new audio starts now.
            start(at: present, rate: rate)
        }
        frames += Int64(count)
        if let end = playedOut, end - lead > present { sleep(end - lead - present) }
    }

    /// Blocks until everything written has been heard.
    public mutating func drain() {
        let present = now()
        if let end = playedOut, end > present { sleep(end - present) }
    }

    /// Forgets what was written (close, flush): the next write starts a new run.
    public mutating func reset() {
        anchor = nil
        frames = 0
        rate = 0
    }

    private mutating func start(at present: ContinuousClock.Instant, rate: Int) {
        anchor = present
        frames = 0
        self.rate = rate
    }

    static func duration(frames: Int64, rate: Int) -> Duration {
        // Whole seconds and the remainder in nanoseconds: exact for any length.
        let r = Int64(rate)
        return .seconds(frames / r) + .nanoseconds((frames % r) * 1_000_000_000 / r)
    }

    @Sendable public static func sleepThread(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        // EINTR: sleep the rest.
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
