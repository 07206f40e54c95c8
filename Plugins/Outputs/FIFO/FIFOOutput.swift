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
/// Opening, as MPD does: a read end of our own first, then the write end, both non-blocking. snapserver closes the
/// pipe and opens it again every 100 ms while nothing writes, so a write end opened alone would nearly always be
/// refused (ENXIO); with our own reader the open succeeds whether snapserver runs or not, and it never fails with
/// EPIPE when snapserver stops or restarts: snapserver opens the same pipe again and reads on.
///
/// Writing never holds the player back: the pipe is kept to at most `maxQueued` (about half a second): what would go
/// beyond is made room for by reading the oldest audio out through our own read end and dropping it. So with
/// snapserver away or hung the pipe holds the latest half second, and a snapserver that comes back hears the music
/// of now, not of when it left. The player's lead over the clock (up to 200 ms and a chunk) fits below that limit,
/// so nothing is dropped while snapserver reads. Writes go in pieces of at most PIPE_BUF bytes, whole frames, which
/// the kernel writes all or nothing, and reads take whole frames, so the reader never sees a frame cut in two.
///
/// Should our read end be refused (the pipe belongs to another user and is write-only for us), the output works
/// without it: the open is retried every half second until snapserver holds the pipe, EPIPE closes it, and a full
/// pipe costs one wait of at most `stallLimit`, after which writes drop until one goes through whole.
public final class FIFOAudioOutput: AudioOutput {
    public let path: String
    public let target: FIFOFormat
    /// The music's format, from the last `open`.
    public private(set) var format: PCMFormat?
    /// Frames (in the pipe's format) written to the pipe, and frames dropped (never written, or taken back out of the
    /// pipe unread), since this output was made; for tests and status.
    public private(set) var framesWritten: Int64 = 0
    public private(set) var framesDropped: Int64 = 0

    static let reconnectDelay: Duration = .milliseconds(500)
    static let stallLimit: Duration = .milliseconds(100)
    /// How often a write checks that the path is still the pipe it has open (removed and made again: reopen).
    static let identityCheck: Duration = .seconds(1)

    private var resampler: PCMResampler?
    /// The write end; -1 while not open.
    private var fd: Int32 = -1
    /// Our own read end, -1 when refused.
    private var reader: Int32 = -1
    /// The most bytes left in the pipe after a write.
    private var maxQueued = 0
    /// No new open of the pipe before this (nobody was reading); nil: at the next write.
    private var nextAttempt: ContinuousClock.Instant?
    private var checkedIdentity = ContinuousClock.now
    /// Without our own read end: the reader took nothing for `stallLimit`, writes drop at once until one goes through.
    private var dropping = false
    private var bytes: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65536)

    init(path: String, format: FIFOFormat) {
        self.path = path
        target = format
        // Without our own read end, a reader that goes away makes the next write fail with EPIPE: handled there, not
        // a signal that ends crated.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        disconnect()
    }

    public var destination: String { "named pipe \(path) (\(target), raw PCM for Snapcast)" }

    /// The pipe's reader sets no pace the player could follow: the player keeps the sample clock (or a sound card does).
    public var keepsTime: Bool { false }

    /// Whether the pipe is open now.
    public var isConnected: Bool { fd >= 0 }

    /// Bytes waiting in the pipe for its reader; nil without our own read end.
    public var queuedBytes: Int? {
        guard reader >= 0 else { return nil }
        var count: Int32 = 0
        return ioctl(reader, UInt(FIONREAD), &count) == 0 ? Int(count) : nil
    }

    public func open(_ format: PCMFormat) throws {
        guard format.channels > 0, format.sampleRate > 0 else { throw OutputError(output: "fifo", reason: "cannot play \(format)") }
        try Self.makePipe(path)
        if format != self.format || resampler == nil {
            // A new format between tracks: what the old resampler holds still belongs to the music before it.
            if let resampler { try send(resampled { try resampler.flush() }) }
            resampler = try resampled { try PCMResampler(from: format, toRate: target.sampleRate, toChannels: target.channels) }
            self.format = format
        }
        if fd >= 0, !isStillThePipe() { disconnect() }
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

    /// Drops what the resampler holds and what snapserver has not yet read from the pipe, and keeps the pipe: the
    /// new position is heard after snapserver's own buffer, not after the old position's last half second too.
    public func flush() -> Bool {
        _ = try? resampler?.flush()
        if let queued = queuedBytes, queued > 0 { discard(queued) }
        dropping = false
        return true
    }

    public func close() {
        disconnect()
        resampler = nil
        format = nil
        nextAttempt = nil
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

    /// Opens our read end, then the write end. Without our read end and with no reader, leaves it closed and tries
    /// again after `reconnectDelay`.
    private func connect() throws {
        if let nextAttempt, ContinuousClock.now < nextAttempt { return }
        try Self.makePipe(path)
        let readEnd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let descriptor = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if readEnd >= 0 { Glibc.close(readEnd) }
            guard code == ENXIO else {
                throw OutputError(output: "fifo", reason: "cannot open the named pipe \(path) for writing: \(Self.describe(code))")
            }
            nextAttempt = ContinuousClock.now + Self.reconnectDelay
            return
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            Glibc.close(descriptor)
            if readEnd >= 0 { Glibc.close(readEnd) }
            throw OutputError(output: "fifo", reason: "\(path) is not a named pipe")
        }
        // Room for half a second and more (the kernel rounds up to a power of two pages); refused above
        // /proc/sys/fs/pipe-max-size, when the default 64 KiB stays.
        let halfSecond = target.sampleRate * target.frameBytes / 2
        _ = fcntl(descriptor, Self.setPipeSize, Int32(min(1 << 20, halfSecond + halfSecond / 2)))
        let capacity = Int(max(fcntl(descriptor, Self.getPipeSize), 4096))
        maxQueued = max(piece, min(halfSecond, capacity - piece) / target.frameBytes * target.frameBytes)
        fd = descriptor
        reader = readEnd
        dropping = false
        checkedIdentity = ContinuousClock.now
    }

    private func disconnect() {
        if fd >= 0 { Glibc.close(fd) }
        if reader >= 0 { Glibc.close(reader) }
        fd = -1
        reader = -1
        dropping = false
    }

    /// Whether the path still names the pipe we hold: snapserver (or a clean-up of /tmp) may have removed it and
    /// made a new one, which nobody would ever write to otherwise.
    private func isStillThePipe() -> Bool {
        var atPath = stat(), held = stat()
        guard stat(path, &atPath) == 0, fstat(fd, &held) == 0 else { return false }
        return atPath.st_ino == held.st_ino && atPath.st_dev == held.st_dev
    }

    /// F_SETPIPE_SZ and F_GETPIPE_SZ (Linux's fcntl.h, behind _GNU_SOURCE, which Swift's Glibc module does not import).
    private static let setPipeSize: Int32 = 1031
    private static let getPipeSize: Int32 = 1032

    /// The most bytes one write call hands the kernel: whole frames within PIPE_BUF, which it writes all or nothing.
    private var piece: Int { (Int(PIPE_BUF) / target.frameBytes) * target.frameBytes }

    /// Reads `count` bytes (whole frames) of the oldest audio out of the pipe through our read end and drops them.
    private func discard(_ count: Int) {
        guard reader >= 0 else { return }
        var left = (count + target.frameBytes - 1) / target.frameBytes * target.frameBytes
        var taken = 0
        while left > 0 {
            let n = scratch.withUnsafeMutableBytes { read(reader, $0.baseAddress, min(left, $0.count)) }
            if n > 0 {
                left -= n
                taken += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                break  // empty: snapserver took the rest meanwhile
            }
        }
        framesDropped += Int64(taken / target.frameBytes)
    }

    /// Writes `samples` (the pipe's format) without holding the player back; see the type's comment.
    private func send(_ samples: [Float]) throws {
        guard !samples.isEmpty else { return }
        samples.withUnsafeBufferPointer { encode($0) }
        let total = bytes.count
        if fd >= 0, ContinuousClock.now - checkedIdentity >= Self.identityCheck {
            checkedIdentity = ContinuousClock.now
            if !isStillThePipe() { disconnect() }
        }
        if fd < 0 { try connect() }
        var done = 0
        defer {
            framesWritten += Int64(done / target.frameBytes)
            framesDropped += Int64((total - done) / target.frameBytes)
        }
        guard fd >= 0 else { return }
        // Keep the pipe within `maxQueued`: the oldest audio makes room for this.
        if let queued = queuedBytes, queued + total > maxQueued { discard(queued + total - maxQueued) }
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
                case EAGAIN where reader >= 0:
                    // Full below our limit (the kernel would not enlarge the pipe): make room all the same.
                    discard(piece)
                case EAGAIN:
                    if dropping || waited >= Self.stallLimit {
                        stalled = true
                        break writing
                    }
                    let started = ContinuousClock.now
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    let left = Self.stallLimit - waited
                    let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                    _ = poll(&poller, 1, Int32(max(1, milliseconds)))
                    waited += ContinuousClock.now - started
                case EPIPE:
                    // No reader (only without our own read end): snapserver stopped or restarts; open again shortly.
                    disconnect()
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
        SampleConversion.convert(samples, to: target.bits == 16 ? .s16le : target.bits == 24 ? .s24le32 : .s32le, into: &bytes)
    }

    /// The resampler's error as the output's.
    private func resampled<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ResampleError {
            throw OutputError(output: "fifo", reason: error.reason)
        }
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
