public import CrateDomain
import FFmpegSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The raw PCM a named pipe carries: one fixed rate, sample width and channel count, as its reader (snapserver's
/// `sampleformat`) expects; written as `rate:bits:channels`.
public struct FIFOFormat: Sendable, Hashable, CustomStringConvertible {
    public let sampleRate: Int
    /// 16 or 32: signed integers of that width; 24: signed 24-bit values in the low bytes of 4 (Snapcast's and ALSA's S24_LE).
    public let bits: Int
    public let channels: Int

    /// What Snapcast expects by default, and what most of its clients' sound cards run at natively.
    public static let snapcastDefault = FIFOFormat(validSampleRate: 48000, bits: 16, channels: 2)
    public static let accepted = "rate:bits:channels such as 48000:16:2 (rate 8000 to 384000 Hz; bits 16, 24 or 32; channels 1 or 2)"

    private init(validSampleRate: Int, bits: Int, channels: Int) {
        sampleRate = validSampleRate
        self.bits = bits
        self.channels = channels
    }

    /// `48000:16:2`; nil for anything else than three whole numbers in the accepted ranges.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let rate = Int(parts[0]), let bits = Int(parts[1]), let channels = Int(parts[2]),
              (8000...384_000).contains(rate), [16, 24, 32].contains(bits), [1, 2].contains(channels) else { return nil }
        self.init(validSampleRate: rate, bits: bits, channels: channels)
    }

    /// Bytes per sample in the pipe: 24-bit samples take 4, as Snapcast reads them.
    public var sampleBytes: Int { bits == 16 ? 2 : 4 }
    public var frameBytes: Int { sampleBytes * channels }
    public var description: String { "\(sampleRate):\(bits):\(channels)" }
}

/// Raw PCM into a named pipe at one fixed format, as MPD's `fifo` output: for Snapcast's snapserver, which reads the
/// pipe at the sample clock and plays it in sync in every room (Docs/MULTIROOM.md). The music is converted to the
/// pipe's format whatever its own (`PCMResampler`), and a change of format between tracks does not break the stream.
///
/// The pipe never holds the player back for long: with nobody reading, audio is dropped (see `FIFOAudioOutput`).
public struct FIFOOutputPlugin: OutputPlugin {
    /// Snapcast's default source path (and Debian's /etc/snapserver.conf).
    public static let defaultPath = "/tmp/snapfifo"

    public let name = "fifo"
    public let path: String
    public let format: FIFOFormat
    /// A setting that could not be read: the output is unavailable, saying why.
    public let problem: String?

    public init(path: String = FIFOOutputPlugin.defaultPath, format: FIFOFormat = .snapcastDefault, problem: String? = nil) {
        self.path = path
        self.format = format
        self.problem = problem
    }

    /// Available when the pipe is there to write, or can be made; snapserver need not be running (that is
    /// found at each write, and what is played meanwhile is dropped).
    public func checkStatus() -> PluginStatus {
        if let problem { return .unavailable(reason: problem) }
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFIFO else {
                return .unavailable(reason: "\(path) exists and is not a named pipe; remove it, or set outputs.fifo.path to another path")
            }
            guard access(path, W_OK) == 0 else {
                return .unavailable(reason: "cannot write the named pipe \(path): \(FIFOAudioOutput.describe(errno))")
            }
            return .available
        }
        guard errno == ENOENT else { return .unavailable(reason: "cannot look at \(path): \(FIFOAudioOutput.describe(errno))") }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            return .unavailable(reason: "cannot make the named pipe \(path): the folder \(folder) does not exist")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            return .unavailable(reason: "cannot make the named pipe \(path): the folder \(folder) is not writable (\(FIFOAudioOutput.describe(errno)))")
        }
        return .available
    }

    public func makeOutput() throws -> any AudioOutput {
        if case .unavailable(let reason) = checkStatus() { throw OutputError(output: name, reason: reason) }
        return FIFOAudioOutput(path: path, format: format)
    }
}

/// The open pipe. Owned by the playback thread.
///
/// Opening: the write end is opened non-blocking, so a pipe nobody reads (snapserver not running) does not block;
/// the kernel then refuses (ENXIO), the audio is dropped and the open is tried again half a second later, at a write.
/// Unlike MPD, no read end is held to make the open succeed: a pipe with a reader of our own would fill with stale
/// audio while snapserver is away and hand it out when it is back; and when snapserver stops, the next write fails
/// with EPIPE, the pipe is closed and reopened by a later write, so a restarted snapserver hears the music again.
///
/// Writing: in pieces of at most PIPE_BUF bytes, whole frames each, which the kernel writes all or nothing, so the
/// reader never sees a frame cut in two, whatever is dropped. When the pipe is full the write waits for room at most
/// `stallLimit` per call; if the reader has not taken anything by then it is stalled, the rest is dropped, and later
/// writes drop at once until one goes through whole. The pipe is enlarged to about half a second so the player's
/// lead (up to 200 ms ahead of the clock) fits in it without waiting.
public final class FIFOAudioOutput: AudioOutput {
    public let path: String
    public let target: FIFOFormat
    /// The music's format, from the last `open`.
    public private(set) var format: PCMFormat?
    /// Frames (in the pipe's format) written to the pipe and dropped, since this output was made; for tests and status.
    public private(set) var framesWritten: Int64 = 0
    public private(set) var framesDropped: Int64 = 0

    static let reconnectDelay: Duration = .milliseconds(500)
    static let stallLimit: Duration = .milliseconds(100)

    private var resampler: PCMResampler?
    private var fd: Int32 = -1
    /// No new open of the pipe before this (nobody was reading); nil: at the next write.
    private var nextAttempt: ContinuousClock.Instant?
    /// The reader took nothing for `stallLimit`: writes drop at once until one goes through whole.
    private var dropping = false
    private var bytes: [UInt8] = []

    init(path: String, format: FIFOFormat) {
        self.path = path
        target = format
        // A reader that goes away makes the next write fail with EPIPE: handled there, not a signal that ends crated.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    public var destination: String { "named pipe \(path) (\(target), raw PCM for Snapcast)" }

    /// The pipe's reader sets the pace, not this output: the player keeps the sample clock (or a sound card does).
    public var keepsTime: Bool { false }

    /// Whether the pipe is open to a reader now.
    public var isConnected: Bool { fd >= 0 }

    public func open(_ format: PCMFormat) throws {
        guard format.channels > 0, format.sampleRate > 0 else { throw OutputError(output: "fifo", reason: "cannot play \(format)") }
        try Self.makePipe(path)
        if format != self.format || resampler == nil {
            // A new format between tracks: what the old resampler holds still belongs to the music before it.
            if let resampler { try send(resampled { try resampler.flush() }) }
            resampler = try resampled { try PCMResampler(from: format, toRate: target.sampleRate, toChannels: target.channels) }
            self.format = format
        }
        if fd < 0 {
            nextAttempt = nil
            try connect()
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let resampler, let format else { throw OutputError(output: "fifo", reason: "write before open") }
        guard samples.count % format.channels == 0 else {
            throw OutputError(output: "fifo", reason: "write of \(samples.count) samples is not whole \(format.channels)-channel frames")
        }
        try send(resampled { try resampler.convert(samples) })
    }

    /// Writes what the resampler still holds. The reader has the rest: nothing to wait for (it keeps no time).
    public func drain() throws {
        guard let resampler else { return }
        try send(resampled { try resampler.flush() })
    }

    /// Drops what the resampler holds, keeps the pipe: the next write is the new position's sound. What is already
    /// in the pipe cannot be taken back (at most the player's lead, ~200 ms).
    public func flush() -> Bool {
        _ = try? resampler?.flush()
        dropping = false
        return true
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        resampler = nil
        format = nil
        nextAttempt = nil
        dropping = false
    }

    // MARK: The pipe

    /// Makes the named pipe when it is missing; refuses a path that is something else.
    static func makePipe(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFIFO else {
                throw OutputError(output: "fifo", reason: "\(path) exists and is not a named pipe; remove it, or set outputs.fifo.path to another path")
            }
            return
        }
        guard errno == ENOENT else { throw OutputError(output: "fifo", reason: "cannot look at \(path): \(describe(errno))") }
        // Readable by others: a snapserver running as its own user (Debian's system service) reads it.
        if mkfifo(path, 0o644) != 0, errno != EEXIST {
            throw OutputError(output: "fifo", reason: "cannot make the named pipe \(path): \(describe(errno))")
        }
        // EEXIST: snapserver made it in the meantime; check what is there now.
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            throw OutputError(output: "fifo", reason: "\(path) exists and is not a named pipe")
        }
    }

    /// Opens the write end when a reader is there; with none, leaves it closed and tries again after `reconnectDelay`.
    private func connect() throws {
        if let nextAttempt, ContinuousClock.now < nextAttempt { return }
        var descriptor = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            // Removed while we were away (a reboot's /tmp clean-up, a restarted snapserver): make it again.
            try Self.makePipe(path)
            descriptor = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            let code = errno
            guard code == ENXIO else {
                throw OutputError(output: "fifo", reason: "cannot open the named pipe \(path) for writing: \(Self.describe(code))")
            }
            nextAttempt = ContinuousClock.now + Self.reconnectDelay
            return
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            Glibc.close(descriptor)
            throw OutputError(output: "fifo", reason: "\(path) is not a named pipe")
        }
        // About half a second of the pipe's format (the kernel rounds up to a power of two pages); refused above
        // /proc/sys/fs/pipe-max-size, when the default 64 KiB stays.
        let size = max(65536, min(1 << 20, target.sampleRate * target.frameBytes / 2))
        _ = fcntl(descriptor, Self.setPipeSize, Int32(size))
        fd = descriptor
        dropping = false
    }

    /// F_SETPIPE_SZ (Linux's fcntl.h, behind _GNU_SOURCE, which Swift's Glibc module does not import).
    private static let setPipeSize: Int32 = 1031

    /// Writes `samples` (the pipe's format) without holding the player back more than `stallLimit`; whatever cannot
    /// go is dropped in whole frames.
    private func send(_ samples: [Float]) throws {
        guard !samples.isEmpty else { return }
        samples.withUnsafeBufferPointer { encode($0) }
        let total = bytes.count
        if fd < 0 { try connect() }
        var done = 0
        defer {
            framesWritten += Int64(done / target.frameBytes)
            framesDropped += Int64((total - done) / target.frameBytes)
        }
        guard fd >= 0 else { return }
        let piece = (Int(PIPE_BUF) / target.frameBytes) * target.frameBytes
        var waited = Duration.zero
        var stalled = false
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            writing: while done < total {
                let n = Glibc.write(fd, base + done, min(piece, total - done))
                if n > 0 { done += n; continue }
                let code = n < 0 ? errno : EAGAIN
                switch code {
                case EINTR:
                    continue
                case EAGAIN:
                    if dropping || waited >= Self.stallLimit {
                        stalled = true
                        break writing
                    }
                    let started = ContinuousClock.now
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    let left = Self.stallLimit - waited
                    _ = poll(&poller, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
                    waited += ContinuousClock.now - started
                case EPIPE:
                    // The reader went away (snapserver stopped or restarts): open again shortly.
                    Glibc.close(fd)
                    fd = -1
                    nextAttempt = ContinuousClock.now + Self.reconnectDelay
                    break writing
                default:
                    throw OutputError(output: "fifo", reason: "cannot write the named pipe \(path): \(Self.describe(code))")
                }
            }
        }
        if stalled { dropping = true } else if done == total { dropping = false }
    }

    /// `samples` as the pipe's little-endian integers, in `bytes`.
    private func encode(_ samples: UnsafeBufferPointer<Float>) {
        switch target.bits {
        case 16: SampleConversion.convert(samples, to: .s16le, into: &bytes)
        case 32: SampleConversion.convert(samples, to: .s32le, into: &bytes)
        default:
            bytes.removeAll(keepingCapacity: true)
            bytes.reserveCapacity(samples.count * 4)
            for s in samples {
                let v = Int32((max(-1, min(1, Double(s))) * 8_388_607).rounded())
                withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
            }
        }
    }

    /// The resampler's error as the output's.
    private func resampled<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ResampleError {
            throw OutputError(output: "fifo", reason: error.reason)
        }
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
