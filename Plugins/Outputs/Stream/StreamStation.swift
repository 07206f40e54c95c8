import CrateDomain
import FFmpegSupport
import Foundation

/// The stream output's one encoder and its broadcast, alive as long as crated: the player's output (made and let go
/// as playback starts and stops) writes into it, and while the player is paused or stopped it keeps the listeners fed
/// with silence at real time, so nobody is dropped and the music is heard again the moment it resumes.
final class StreamStation: @unchecked Sendable {
    let broadcast: Broadcast
    let bitRate: Int
    /// After this long without music, silence fills in (a pause, a stop, the end of the queue).
    static let quietAfter: Duration = .milliseconds(300)

    private let lock = NSLock()
    private var encoder: OggOpusEncoder?
    private var resampler: PCMResampler?
    private var lastMusic: ContinuousClock.Instant?
    /// Where the silence now playing began, and the frames of it sent since.
    private var silence: (since: ContinuousClock.Instant, frames: Int64)?
    private var filling = false
    private let zeros = [Float](repeating: 0, count: OggOpusEncoder.frameSize * OggOpusEncoder.channels)

    init(broadcast: Broadcast, bitRate: Int) {
        self.broadcast = broadcast
        self.bitRate = bitRate
    }

    /// Ready for music in `format` (resampled to 48 kHz stereo when it differs).
    func open(_ format: PCMFormat) throws {
        try locked {
            if encoder == nil { encoder = try OggOpusEncoder(bitRate: bitRate) }
            if resampler?.input != format {
                resampler = try PCMResampler(from: format, toRate: OggOpusEncoder.rate, toChannels: OggOpusEncoder.channels)
            }
        }
        startFilling()
    }

    /// Pages are sent under the lock, so the music and the silence thread can never put them out of order.
    func write(_ samples: UnsafeBufferPointer<Float>) throws {
        try locked {
            guard let encoder, let resampler else { throw OutputError(output: "stream", reason: "write before open") }
            lastMusic = ContinuousClock.now
            silence = nil
            let converted = try resampler.convert(samples)
            send(try converted.withUnsafeBufferPointer { try encoder.encode($0) })
        }
    }

    func nowPlaying(_ tags: NowPlayingTags) {
        locked { encoder?.announce(tags) }
    }

    private func send(_ out: [OggOpusEncoder.Output]) {
        for piece in out {
            switch piece {
            case .headers(let bytes): broadcast.begin(headers: bytes)
            case .pages(let bytes): broadcast.send(bytes)
            }
        }
    }

    // MARK: Silence

    /// One thread for the station's life, started with the first music: it wakes every 100 ms while someone listens
    /// (every second otherwise) and sends the silence due since the music stopped.
    private func startFilling() {
        let start = locked { () -> Bool in
            defer { filling = true }
            return !filling
        }
        guard start else { return }
        WorkerThread.start(name: "crate-stream-silence") { [weak self] in
            while let self {
                let listening = broadcast.listenerCount > 0
                Thread.sleep(forTimeInterval: listening ? 0.1 : 1)
                if listening { fillSilence() }
            }
        }
    }

    private func fillSilence() {
        locked {
            let now = ContinuousClock.now
            guard let encoder, lastMusic.map({ now - $0 >= Self.quietAfter }) ?? true else { return }
            let began = silence ?? (now, 0)
            let due = Int64(Double((now - began.since) / .milliseconds(1)) * Double(OggOpusEncoder.rate) / 1000) - began.frames
            let frames = due / Int64(OggOpusEncoder.frameSize) * Int64(OggOpusEncoder.frameSize)
            silence = (began.since, began.frames + frames)
            for _ in 0..<Int(frames) / OggOpusEncoder.frameSize {
                send((try? zeros.withUnsafeBufferPointer { try encoder.encode($0) }) ?? [])
            }
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
