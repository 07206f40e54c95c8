public import CrateDomain
import Foundation

/// The player's audio engine: a decoder thread runs ahead of an output thread through a bounded buffer
/// (`bufferSeconds` of PCM). Both threads block in C calls, so they are real threads, not tasks.
///
/// Gapless: when the decoder reaches the end of an item it goes straight on with `upcoming`, so the
/// buffer holds the tail of one track and the head of the next; the output writes them back to back
/// on the open device and reopens only when the PCM format changes at the border.
/// Seek, play and stop drop the buffer and flush the device, so they take effect at once; the device stays open
/// (a PulseAudio stream, say) so the next play starts without reconnecting, and is let go `keepOutputSeconds`
/// after the music stopped.
/// Volume is a software gain, ramped over each chunk so changes never click. Each item's own gain
/// (`EngineItem.gain`, loudness normalisation) multiplies it from the item's first sample to its last: a step
/// exactly at the border, which is where the music itself changes, never a ramp across two tracks.
public final class PlaybackEngine: @unchecked Sendable {
    // Every var below is guarded by `lock`; the two threads wait on it.
    private let lock = NSCondition()
    private var job: EngineItem?
    private var upcoming: EngineItem?
    private var decodeGeneration: UInt64 = 0
    private var outputGeneration: UInt64 = 0
    private var buffer: [Chunk] = []
    private var bufferedSeconds = 0.0
    private var paused = false
    private var flushRequested = false
    private var closeRequested = false
    private var idlePending = false
    private var shuttingDown = false
    private var gain: Float = 1
    private var playing: (item: EngineItem, frame: Int64, info: StreamInfo)?
    /// Whether the controller has said what follows `job` (or, with no job, the last decoded item).
    /// Until it has, the engine is not idle: the answer may come after the decoder finished.
    private var nextKnown = true
    private var lastDecoded: UInt64?
    private var decoderResting = false
    /// The output thread is asleep waiting for the decoder. The decoder wakes it once `wakeSeconds` of audio are
    /// buffered (or the item ends, or the decoder itself is about to wait), not for every chunk: on an output that
    /// never waits for a device (the null output rendering) a wake-up per chunk was a context switch per chunk.
    private var outputWaiting = false
    private var wakeSeconds: Double { min(bufferSeconds / 4, 0.5) }
    private var threadsRunning = 0

    private let decoders: DecoderRegistry
    /// Where items' bytes come from: files, and http(s) when a plugin provides it.
    private let inputs: InputRegistry
    private let makeOutput: @Sendable () throws -> any AudioOutput
    private let continuation: AsyncStream<EngineEvent>.Continuation
    /// Events in the order they happened; one consumer.
    public let events: AsyncStream<EngineEvent>
    public let bufferSeconds: Double
    public let chunkFrames: Int
    /// How long an idle output (stopped, or at the end of the queue) stays open for the next play.
    public let keepOutputSeconds: Double

    public init(decoders: DecoderRegistry, inputs: InputRegistry = InputRegistry(), bufferSeconds: Double = 2, chunkFrames: Int = 4096,
                keepOutputSeconds: Double = 10, makeOutput: @escaping @Sendable () throws -> any AudioOutput) {
        self.keepOutputSeconds = keepOutputSeconds
        self.decoders = decoders
        self.inputs = inputs
        self.makeOutput = makeOutput
        self.bufferSeconds = bufferSeconds
        self.chunkFrames = chunkFrames
        (events, continuation) = AsyncStream.makeStream(of: EngineEvent.self)
        threadsRunning = 2
        WorkerThread.start(name: "crate-decoder") { [unowned self] in decodeLoop() }
        WorkerThread.start(name: "crate-output") { [unowned self] in outputLoop() }
    }

    /// Stops both threads and waits for them.
    public func shutdown() {
        lock.lock()
        shuttingDown = true
        lock.broadcast()
        while threadsRunning > 0 { lock.wait() }
        lock.unlock()
        continuation.finish()
    }

    // MARK: - Commands

    /// Plays `item` now, dropping whatever was playing or buffered.
    public func play(_ item: EngineItem) {
        withLock {
            restart(item)
            paused = false
        }
    }

    /// Says what plays after the item with token `after` (the answer to `.decoding` and `play`).
    /// - `after` is being decoded: `item` follows it, gaplessly.
    /// - `after` was decoded already and nothing followed: `item` is decoded now.
    /// - `after` is at the output and the decoder went on to another, not yet heard item: that one is
    ///   dropped and `item` decoded instead (the queue changed).
    /// An `item` that starts decoding here is announced with `.decoding`, like any other.
    public func setNext(_ item: EngineItem?, after: UInt64) {
        withLock {
            if job?.token == after {
                upcoming = item
                nextKnown = true
            } else if job == nil, lastDecoded == after {
                startDecoding(item)
            } else if (playing?.item ?? buffer.first?.item)?.token == after {
                // `after` is at (or next to reach) the output and the decoder is ahead of it:
                // everything decoded after it goes, finished or not.
                buffer.removeAll { $0.item.token != after }
                recount()
                decodeGeneration &+= 1
                lastDecoded = nil
                upcoming = nil
                startDecoding(item)
            }
        }
    }

    /// Makes `item` the decoder's job (nil: nothing follows) and asks what comes after it.
    private func startDecoding(_ item: EngineItem?) {
        job = item
        nextKnown = item == nil
        if let item {
            idlePending = true
            continuation.yield(.decoding(item))
        }
    }

    public func pause() { withLock { paused = true } }
    public func resume() { withLock { paused = false } }

    /// Moves within the item at the output to `frame`.
    public func seek(toFrame frame: Int64) {
        withLock {
            guard var item = playing?.item ?? job else { return }
            item.startFrame = max(0, frame)
            let info = playing?.info
            let keepUpcoming = job?.token == item.token ? upcoming : job
            let known = job?.token == item.token ? nextKnown : true
            restart(item)
            upcoming = keepUpcoming
            nextKnown = known
            // Paused, the position must already show the new place.
            if let info { playing = (item, item.startFrame, info) }
        }
    }

    /// Stops and releases the output.
    public func stop() {
        withLock {
            decodeGeneration &+= 1
            outputGeneration &+= 1
            job = nil
            upcoming = nil
            nextKnown = true
            lastDecoded = nil
            buffer.removeAll()
            bufferedSeconds = 0
            paused = false
            playing = nil
            idlePending = false
            closeRequested = true
        }
    }

    /// 0–100; linear amplitude.
    public func setVolume(_ percent: Int) {
        withLock { gain = Float(min(max(percent, 0), 100)) / 100 }
    }

    /// The item at the output and how far into it the output has got.
    public func position() -> (item: EngineItem, frame: Int64, info: StreamInfo)? {
        withLock { playing }
    }

    public var isPaused: Bool { withLock { paused } }

    private func restart(_ item: EngineItem) {
        decodeGeneration &+= 1
        outputGeneration &+= 1
        job = item
        upcoming = nil
        nextKnown = false
        lastDecoded = nil
        buffer.removeAll()
        bufferedSeconds = 0
        flushRequested = true
        idlePending = true
        playing = nil
    }

    private func recount() {
        bufferedSeconds = buffer.reduce(0) { $0 + Double($1.frames) / Double(max($1.info.sampleRate, 1)) }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.broadcast(); lock.unlock() }
        return body()
    }

    // MARK: - Decoder thread

    private func decodeLoop() {
        var decoder: (any AudioDecoder)?
        // The open item's bytes, watched for in-band metadata (radio titles).
        var stream: (any ByteStream)?
        var metadataGeneration: Int?
        var current: EngineItem?
        var generation: UInt64 = 0
        var first = true
        var scratch: [Float] = []
        /// A read that failed after part of a chunk: that part is played first, then the item ends with this.
        var pendingFailure: String?
        while true {
            lock.lock()
            // Once the buffer is full the decoder rests until it has drained to half: one wake-up per
            // half buffer instead of one per chunk.
            if bufferedSeconds >= bufferSeconds { decoderResting = true }
            while !shuttingDown && (job == nil || (decoderResting && bufferedSeconds > bufferSeconds / 2)) {
                if outputWaiting && !buffer.isEmpty { lock.broadcast() }
                lock.wait()
            }
            decoderResting = false
            guard !shuttingDown, let item = job else { break }
            let restartDecoder = current?.token != item.token || generation != decodeGeneration
            generation = decodeGeneration
            lock.unlock()

            if restartDecoder {
                pendingFailure = nil
                decoder = nil
                current = item
                first = true
                stream = nil
                metadataGeneration = nil
                do {
                    let input = try inputs.open(item.url)
                    let opened = try decoders.open(stream: input)
                    if item.startFrame > 0 { try opened.seek(toFrame: item.startFrame) }
                    decoder = opened
                    stream = input
                } catch {
                    finishItem(item, generation: generation, failure: ErrorText.describe(error), appendMarker: false)
                    current = nil
                    continue
                }
            }
            guard let decoder else { continue }
            let info = decoder.info
            let channels = max(info.channels, 1)
            let wanted = chunkFrames * channels
            if scratch.count != wanted { scratch = [Float](repeating: 0, count: wanted) }
            // A whole chunk per hand-over, however little each read gives (an Opus packet is 960 frames, a FLAC
            // frame often 4096): the buffer's lock, the output's wake-up and the write are paid per chunk.
            var failure = pendingFailure
            pendingFailure = nil
            let n = failure != nil ? 0 : scratch.withUnsafeMutableBufferPointer { all -> Int in
                var filled = 0
                while filled < chunkFrames {
                    do {
                        let got = try decoder.read(into: UnsafeMutableBufferPointer(rebasing: all[(filled * channels)...]))
                        if got == 0 { break }
                        filled += got
                    } catch {
                        failure = ErrorText.describe(error)
                        break
                    }
                }
                return filled
            }
            if n == 0 {
                finishItem(item, generation: generation, failure: failure, appendMarker: true)
                current = nil
                continue
            }
            pendingFailure = failure
            // Reported as decoded: the title changes a buffer's length (≤ bufferSeconds) before it is heard.
            if let metadata = stream?.metadata, metadata.generation != metadataGeneration {
                metadataGeneration = metadata.generation
                continuation.yield(.streamMetadata(item, metadata))
            }
            lock.lock()
            if generation == decodeGeneration {
                let start = (buffer.last(where: { $0.item.token == item.token })?.endFrame)
                    ?? (first ? item.startFrame : playing.map { $0.item.token == item.token ? $0.frame : item.startFrame } ?? item.startFrame)
                buffer.append(Chunk(item: item, info: info, samples: Array(scratch[0..<n * info.channels]),
                                    startFrame: start, isFirst: first, isLast: false,
                                    generation: outputGeneration))
                bufferedSeconds += Double(n) / Double(max(info.sampleRate, 1))
                first = false
                if outputWaiting && bufferedSeconds >= wakeSeconds { lock.broadcast() }
            }
            lock.unlock()
        }
        threadsRunning -= 1
        lock.broadcast()
        lock.unlock()
    }

    /// The decoder is done with `item`: mark its end in the buffer and go on with `upcoming`.
    private func finishItem(_ item: EngineItem, generation: UInt64, failure: String?, appendMarker: Bool) {
        lock.lock()
        defer { lock.broadcast(); lock.unlock() }
        guard generation == decodeGeneration else { return }
        if let failure { continuation.yield(.failed(item, reason: failure)) }
        if appendMarker {
            buffer.append(Chunk(item: item, info: StreamInfo(codec: "", sampleRate: 0, channels: 0), samples: [],
                                startFrame: 0, isFirst: false, isLast: true, failed: failure != nil, generation: outputGeneration))
        }
        lastDecoded = item.token
        if nextKnown {
            let next = upcoming
            upcoming = nil
            startDecoding(next)
        } else {
            // The controller has not answered yet; its `setNext(after: item)` restarts the decoder.
            job = nil
        }
    }

    // MARK: - Output thread

    private func outputLoop() {
        var output: (any AudioOutput)?
        var openFormat: PCMFormat?
        /// The volume reached by the last chunk written (volume changes ramp from it).
        var currentGain: Float = 1
        /// When the open output last fell idle (stop, end of queue): it is let go `keepOutputSeconds` later.
        var idleSince: Date?
        /// The item whose tags the open output was told (once per track, not again on a seek or resume).
        var announced: UInt64?
        /// The open output was flushed and nothing written since: a play after a stop has nothing to drop, and skips
        /// the flush (a round trip to the sound server: 0.4-1.9 ms before the first sound, PulseAudio on the 2-core VM).
        var flushedSinceWrite = false
        func release() {
            output?.close()
            output = nil
            openFormat = nil
            idleSince = nil
            announced = nil
            flushedSinceWrite = false
        }
        while true {
            lock.lock()
            var idleTimedOut = false
            while !shuttingDown && !flushRequested && !closeRequested
                && (paused || buffer.isEmpty) && !(idlePending && buffer.isEmpty && job == nil && nextKnown && !paused) {
                outputWaiting = true
                defer { outputWaiting = false }
                if output != nil, !paused, let idleSince {
                    if !lock.wait(until: idleSince.addingTimeInterval(keepOutputSeconds)) {
                        idleTimedOut = true
                        break
                    }
                } else {
                    lock.wait()
                }
            }
            if shuttingDown { break }
            if idleTimedOut {
                lock.unlock()
                release()
                continue
            }
            if flushRequested || closeRequested {
                let close = closeRequested
                flushRequested = false
                closeRequested = false
                lock.unlock()
                // What the device still holds is dropped, so a seek or skip is heard at once; the device stays open
                // when it can flush, and is closed and opened again when it cannot.
                if let out = output {
                    if flushedSinceWrite || out.flush() {
                        flushedSinceWrite = true
                        if close { idleSince = Date() }
                    } else {
                        release()
                    }
                }
                continue
            }
            if buffer.isEmpty {
                // Nothing left and nothing coming: play out the tail; the device stays open a while for the next play.
                idlePending = false
                playing = nil
                lock.unlock()
                if (try? output?.drain()) == nil { release() }
                if output != nil { idleSince = Date() }
                continuation.yield(.idle)
                continue
            }
            var chunk = buffer.removeFirst()
            bufferedSeconds -= Double(chunk.frames) / Double(max(chunk.info.sampleRate, 1))
            let targetGain = gain
            if !chunk.isLast { playing = (chunk.item, chunk.startFrame, chunk.info) }
            // Wake the decoder only when it has something to do.
            if !decoderResting || bufferedSeconds <= bufferSeconds / 2 { lock.broadcast() }
            lock.unlock()

            if chunk.isLast {
                if !chunk.failed { continuation.yield(.finished(chunk.item)) }
                continue
            }
            if chunk.isFirst { continuation.yield(.started(chunk.item, chunk.info)) }
            idleSince = nil
            do {
                if output == nil { output = try makeOutput() }
                guard let out = output else { continue }
                let format = chunk.info.pcmFormat
                if openFormat != format {
                    if openFormat != nil { try out.drain() }
                    try out.open(format)
                    openFormat = format
                }
                if announced != chunk.item.token {
                    announced = chunk.item.token
                    if let tags = chunk.item.tags { out.nowPlaying(tags) }
                }
                // The item's gain is constant across the item: only the volume part ramps.
                let itemGain = chunk.item.gain
                Self.applyGain(&chunk.samples, channels: chunk.info.channels, from: currentGain * itemGain, to: targetGain * itemGain)
                currentGain = targetGain
                flushedSinceWrite = false
                try chunk.samples.withUnsafeBufferPointer { try out.write($0) }
            } catch {
                let reached = withLock { playing }
                release()
                stop()
                continuation.yield(.outputFailed(ErrorText.describe(error), item: reached?.item ?? chunk.item,
                                                 frame: reached?.frame ?? chunk.startFrame))
                continue
            }
            lock.lock()
            if chunk.generation == outputGeneration, playing?.item.token == chunk.item.token {
                playing?.frame = chunk.startFrame + Int64(chunk.frames)
            }
            lock.unlock()
        }
        lock.unlock()
        release()
        lock.lock()
        threadsRunning -= 1
        lock.broadcast()
        lock.unlock()
    }

    /// Scales samples by a gain moving linearly from `from` to `to` across the chunk: no step, no click.
    static func applyGain(_ samples: inout [Float], channels: Int, from: Float, to: Float) {
        if from == 1 && to == 1 { return }
        let frames = samples.count / max(channels, 1)
        guard frames > 0 else { return }
        if from == to {
            // A steady gain (the usual case with loudness normalisation on): one multiply per sample, exactly g.
            samples.withUnsafeMutableBufferPointer { p in
                for i in p.indices { p[i] *= to }
            }
            return
        }
        let step = (to - from) / Float(frames)
        samples.withUnsafeMutableBufferPointer { p in
            var g = from
            for f in 0..<frames {
                g += step
                for c in 0..<channels { p[f * channels + c] *= g }
            }
        }
    }
}
