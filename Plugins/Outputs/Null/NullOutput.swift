public import CrateDomain
import Synchronization

/// A thread-safe frame total. The playback thread adds to it while a test, benchmark or
/// status reader on another thread reads it, so it is an atomic rather than a plain Int.
public final class FrameCounter: Sendable {
    private let total = Atomic<Int64>(0)

    public init() {}

    /// Frames counted so far.
    public var frames: Int64 { total.load(ordering: .relaxed) }

    public func add(_ frames: Int64) {
        total.add(frames, ordering: .relaxed)
    }

    public func reset() {
        total.store(0, ordering: .relaxed)
    }
}

/// Discards PCM and counts the frames. By default it keeps time like a sound card (`SampleClock`): with no sound
/// server Crate still plays in real time, silently. `render` discards as fast as PCM arrives, for benchmarks and
/// tests, where the decoder's speed, not a device's clock, should set the pace.
public struct NullOutputPlugin: OutputPlugin {
    public let name = "null"
    /// When set, every output made by this plugin also adds its frames here, so a caller that
    /// never sees the output object (it lives inside the player) can still read the total.
    public let sharedCounter: FrameCounter?
    public let render: Bool
    /// A setting that could not be read: the output is unavailable, saying why.
    public let problem: String?

    public init(counter: FrameCounter? = nil, render: Bool = false, problem: String? = nil) {
        self.sharedCounter = counter
        self.render = render
        self.problem = problem
    }

    public func checkStatus() -> PluginStatus { problem.map { .unavailable(reason: $0) } ?? .available }

    public func makeOutput() throws -> any AudioOutput {
        NullAudioOutput(sharedCounter: sharedCounter, clock: render ? nil : SampleClock())
    }
}

public final class NullAudioOutput: AudioOutput {
    public var destination: String {
        clock == nil ? "null output (samples are discarded as fast as they come)" : "null output (samples are discarded in real time)"
    }
    /// Frames written to this output, across every open; readable from any thread.
    public let counter = FrameCounter()
    private let sharedCounter: FrameCounter?
    public private(set) var format: PCMFormat?
    /// Nil: as fast as written.
    private var clock: SampleClock?

    public init(sharedCounter: FrameCounter? = nil, clock: SampleClock? = nil) {
        self.sharedCounter = sharedCounter
        self.clock = clock
    }

    public var keepsTime: Bool { clock != nil }

    /// Frames written to this output since it was made (not reset by open or close).
    public var framesWritten: Int64 { counter.frames }

    public func open(_ format: PCMFormat) throws {
        guard format.channels > 0, format.sampleRate > 0 else {
            throw OutputError(output: "null", reason: "cannot open for \(format): channels and rate must be positive")
        }
        self.format = format
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let format else {
            throw OutputError(output: "null", reason: "write before open")
        }
        // Frames, not samples, so totals compare across mono and stereo streams.
        let frames = Int64(samples.count / format.channels)
        counter.add(frames)
        sharedCounter?.add(frames)
        clock?.wrote(frames: Int(frames), rate: format.sampleRate)
    }

    public func drain() throws {
        clock?.drain()
    }

    /// Drops what a device would still hold: the next sound starts at once.
    public func close() {
        format = nil
        clock?.reset()
    }

    public func flush() -> Bool {
        clock?.reset()
        return format != nil
    }
}
