import CrateDomain
import Foundation
import Synchronization
import Testing

/// The pacing of the null and WAV outputs, on a clock the test drives: exact, and independent of the machine's load.
@Suite struct SampleClockTests {
    /// A clock that moves only when slept on (or when the test moves it).
    final class FakeTime: Sendable {
        private let state = Mutex<(now: ContinuousClock.Instant, slept: Duration)>((ContinuousClock.now, .zero))
        let start: ContinuousClock.Instant

        init() { start = state.withLock { $0.now } }

        var now: ContinuousClock.Instant { state.withLock { $0.now } }
        var slept: Duration { state.withLock { $0.slept } }
        var elapsed: Duration { now - start }

        func sleep(_ d: Duration) { state.withLock { $0.now += d; $0.slept += d } }
        func pass(_ d: Duration) { state.withLock { $0.now += d } }

        func clock(lead: Duration) -> SampleClock {
            SampleClock(lead: lead, now: { self.now }, sleep: { self.sleep($0) })
        }
    }

    static func close(_ a: Duration, _ b: Duration) -> Bool { abs((a - b) / .nanoseconds(1)) <= 1000 }

    @Test func fiveSecondsOfAudioTakeFiveSecondsAndNeverRunMoreThanTheLeadAhead() {
        let time = FakeTime()
        let lead = Duration.milliseconds(200)
        var clock = time.clock(lead: lead)
        var written = 0
        while written < 5 * 44100 {
            let n = min(4096, 5 * 44100 - written)
            clock.wrote(frames: n, rate: 44100)
            written += n
            let ahead = Duration.seconds(Double(written) / 44100) - time.elapsed
            #expect(ahead <= lead + .microseconds(1), "\(written) frames written after \(time.elapsed): \(ahead) ahead")
        }
        #expect(Self.close(time.elapsed, .seconds(5) - lead), "writing took \(time.elapsed)")
        clock.drain()
        #expect(Self.close(time.elapsed, .seconds(5)), "writing and draining took \(time.elapsed)")
    }

    @Test func aPauseDoesNotMakeTheWriterRushToCatchUp() {
        let time = FakeTime()
        var clock = time.clock(lead: .zero)
        clock.wrote(frames: 44100, rate: 44100)          // 1 s
        #expect(Self.close(time.elapsed, .seconds(1)))
        time.pass(.seconds(10))                           // paused: nothing written for 10 s
        clock.wrote(frames: 44100, rate: 44100)          // the next second plays in real time again
        #expect(Self.close(time.elapsed, .seconds(12)), "after the pause: \(time.elapsed)")
    }

    @Test func resetAndAFormatChangeStartANewRun() {
        let time = FakeTime()
        var clock = time.clock(lead: .zero)
        clock.wrote(frames: 22050, rate: 44100)          // 0.5 s
        clock.reset()                                     // closed: what a device held is dropped
        #expect(clock.playedOut == nil)
        clock.wrote(frames: 48000, rate: 48000)          // 1 s at another rate
        #expect(Self.close(time.elapsed, .milliseconds(1500)), "\(time.elapsed)")
        clock.drain()
        #expect(Self.close(time.elapsed, .milliseconds(1500)))
    }
}
