public import CrateDomain
import CrateStorage
public import Foundation
import Logging

/// A transcode on its way: its format, the bit rate it runs at, a length estimate for clients that want one
/// (Subsonic's `estimateContentLength`) and the bytes, in order.
public struct Transcode: Sendable {
    public let format: EncodedFormat
    public let bitRate: Int
    /// Seconds of music from the offset to the end, times the bit rate (containers add a little; codecs vary).
    public let estimatedLength: Int
    public let bytes: TranscodeBytes
}

/// Decodes a library track and encodes it for sending: as fast as the machine goes (many times real time), a few
/// chunks ahead of the listener at most, and it stops when the listener goes away (the stream's consumer ends).
public struct Transcoder: Sendable {
    let store: LibraryStore
    let decoders: DecoderRegistry
    let encoders: EncoderRegistry
    let logger: Logger

    /// Chunks encoded ahead of the consumer before the encoder waits: enough to keep a socket busy, little memory.
    static let chunksAhead = 8
    /// Frames decoded per step (about 90 ms at 44.1 kHz).
    static let framesPerStep = 4096

    /// The formats Crate can send (`opus`, `mp3` with the FFmpeg encoder).
    public var formats: [EncodedFormat] { encoders.formats }

    /// Starts transcoding `trackID` to `format` at `bitRate` kbit/s (nil: the format's default), from `offset`
    /// seconds in. Throws `StoreError.trackNotFound`, `LibraryError.noFile`, a `DecodeError` or an `EncodeError`
    /// before any byte is sent; failures later end the stream with the error.
    public func start(trackID: Int64, format name: String, bitRate: Int? = nil, offset: Double = 0) throws -> Transcode {
        guard let track = try store.track(id: trackID) else { throw StoreError.trackNotFound(trackID) }
        guard let path = track.path, RawFileName.exists(path) else { throw LibraryError.noFile(trackID: trackID) }
        guard let format = encoders.format(named: name) else {
            // The registry says why (no encoder, or which formats there are).
            _ = try encoders.makeEncoder(format: name, bitRate: 128, sampleRate: 44100, channels: 2)
            throw EncodeError(format: name, reason: "no encoder writes it")
        }
        let rate = min(max(bitRate ?? format.defaultBitRate, 32), 320)
        let decoder = try decoders.open(URL(fileURLWithPath: path))
        let info = decoder.info
        let start = max(0, offset)
        if start > 0 { try decoder.seek(toFrame: Int64(start * Double(info.sampleRate))) }
        let encoder = try encoders.makeEncoder(format: format.name, bitRate: rate, sampleRate: info.sampleRate, channels: info.channels)
        let seconds = max(0, track.duration - start)
        let bytes = TranscodeBytes(limit: Self.chunksAhead)
        let logger = self.logger
        // A thread of its own: decoding and encoding block, and must not hold one of the daemon's few cooperative
        // threads (2 on a 2-core machine) while twenty listeners transcode.
        let work = Work(decoder: decoder, encoder: encoder)
        WorkerThread.start(name: "crate-transcode") {
            do {
                try work.run(channels: info.channels, to: bytes)
                bytes.finish()
            } catch is CancellationError {
                logger.debug("transcode of track \(trackID) stopped: the listener went away")
                bytes.finish()
            } catch {
                logger.warning("transcode of track \(trackID) to \(format.name) failed: \(error)")
                bytes.finish(error)
            }
        }
        return Transcode(format: format, bitRate: rate, estimatedLength: Int(seconds * Double(rate) * 1000 / 8), bytes: bytes)
    }

    /// The decoder and encoder, handed to the transcoding thread (each used by that thread alone).
    private final class Work: @unchecked Sendable {
        let decoder: any AudioDecoder
        let encoder: any AudioEncoder

        init(decoder: any AudioDecoder, encoder: any AudioEncoder) {
            self.decoder = decoder
            self.encoder = encoder
        }

        func run(channels: Int, to bytes: TranscodeBytes) throws {
            var buffer = [Float](repeating: 0, count: Transcoder.framesPerStep * channels)
            while true {
                if bytes.isCancelled { throw CancellationError() }
                let frames = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
                if frames == 0 { break }
                let chunk = try buffer.withUnsafeBufferPointer {
                    try encoder.encode(UnsafeBufferPointer(rebasing: $0[0..<frames * channels]))
                }
                if !chunk.isEmpty { try bytes.send(chunk) }
            }
            let last = try encoder.finish()
            if !last.isEmpty { try bytes.send(last) }
        }
    }
}

/// The bytes of a transcode, handed from the transcoding thread to the task sending them: at most `limit` chunks
/// wait in between (the thread blocks for room), and when the consumer stops — the listener went away, the task was
/// cancelled, the iterator was dropped — the thread is told and stops.
/// Its state is guarded by `lock`, a condition the producer thread waits on for room (a blocking wait belongs on
/// that thread, never on the consumer's task).
public final class TranscodeBytes: AsyncSequence, @unchecked Sendable {
    public typealias Element = Data

    private enum Next { case value(Data), end((any Error)?), wait }
    private let lock = NSCondition()
    private var queue: [Data] = []
    private var done = false
    private var failure: (any Error)?
    private var cancelled = false
    private var waiter: CheckedContinuation<Data?, any Error>?
    private let limit: Int

    init(limit: Int) { self.limit = Swift.max(1, limit) }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // The producer's side (the transcoding thread).

    /// Hands over a chunk, waiting for room; throws `CancellationError` once the consumer is gone.
    func send(_ data: Data) throws {
        let taker: CheckedContinuation<Data?, any Error>? = try locked {
            while queue.count >= limit && !cancelled { lock.wait() }
            if cancelled { throw CancellationError() }
            if let waiter {
                self.waiter = nil
                return waiter
            }
            queue.append(data)
            return nil
        }
        taker?.resume(returning: data)
    }

    /// The consumer went away (or was cancelled): the transcoding thread stops at its next step.
    public var isCancelled: Bool { locked { cancelled } }
    /// The transcoding thread is done: to the end, stopped by the consumer, or failed.
    public var isFinished: Bool { locked { done } }

    func finish(_ error: (any Error)? = nil) {
        let taker: CheckedContinuation<Data?, any Error>? = locked {
            done = true
            failure = error
            defer { waiter = nil }
            return waiter
        }
        if let error { taker?.resume(throwing: error) } else { taker?.resume(returning: nil) }
    }

    // The consumer's side.

    func cancel() {
        let taker: CheckedContinuation<Data?, any Error>? = locked {
            cancelled = true
            lock.broadcast()  // a producer waiting for room wakes and sees it
            defer { waiter = nil }
            return waiter
        }
        taker?.resume(throwing: CancellationError())
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let next: Next = locked {
                    if cancelled { return .end(CancellationError()) }
                    if !queue.isEmpty {
                        lock.signal()  // room for the producer
                        return .value(queue.removeFirst())
                    }
                    if done { return .end(failure) }
                    waiter = continuation
                    return .wait
                }
                switch next {
                case .value(let data): continuation.resume(returning: data)
                case .end(let failure?): continuation.resume(throwing: failure)
                case .end(nil): continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            cancel()
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let owner: Owner
        public mutating func next() async throws -> Data? { try await owner.bytes.next() }
    }

    /// Dropped with the iterator: a consumer that stops iterating without cancelling still stops the thread.
    final class Owner: Sendable {
        let bytes: TranscodeBytes
        init(_ bytes: TranscodeBytes) { self.bytes = bytes }
        deinit { bytes.cancel() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(owner: Owner(self)) }
}
