public import CrateDomain
public import Foundation
import Glibc

/// Writes the PCM to a 32-bit float WAV file: bit-exact with the pipeline, so a test or a user
/// can compare what the player produced with what the decoder gave.
///
/// File naming: the first `open` creates (or truncates) `path`. A WAV file has one format, so an
/// `open` with a different format than the current file starts the next numbered file beside it
/// (`out.wav`, then `out.2.wav`, `out.3.wav`…). An `open` with the current file's format — also after
/// `close` — keeps appending to the current file. A file that reaches the 4 GiB limit of the
/// RIFF size fields also continues in the next numbered file.
///
/// By default it is written at the sample clock, as a sound card would play it (`SampleClock`): the player's
/// events, history and pause mean the same as with a device. `render` writes as fast as the decoder runs.
public struct WAVFileOutputPlugin: OutputPlugin {
    public let name = "wav"
    public let path: URL
    public let render: Bool
    /// A setting that could not be read: the output is unavailable, saying why.
    public let problem: String?

    public init(path: URL, render: Bool = false, problem: String? = nil) {
        self.path = path
        self.render = render
        self.problem = problem
    }

    /// Available when the file's folder exists and is writable, or could be created
    /// (its nearest existing ancestor is a writable folder). Creates nothing.
    public func checkStatus() -> PluginStatus {
        if let problem { return .unavailable(reason: problem) }
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                return .unavailable(reason: "\(path.path) is a folder; give a file path such as \(path.appendingPathComponent("crate-output.wav").path)")
            }
            if access(path.path, W_OK) != 0 {
                return .unavailable(reason: "cannot write \(path.path): \(String(cString: strerror(errno)))")
            }
            return .available
        }
        var folder = path.deletingLastPathComponent()
        while !fm.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        guard isDirectory.boolValue else {
            return .unavailable(reason: "cannot create \(path.path): \(folder.path) is a file, not a folder")
        }
        if access(folder.path, W_OK | X_OK) != 0 {
            return .unavailable(reason: "cannot create \(path.path): folder \(folder.path) is not writable (\(String(cString: strerror(errno))))")
        }
        return .available
    }

    public func makeOutput() throws -> any AudioOutput {
        WAVFileAudioOutput(path: path, clock: render ? nil : SampleClock())
    }
}

public final class WAVFileAudioOutput: AudioOutput {
    /// The file given to the plugin; numbered files go beside it.
    public let basePath: URL
    /// The file being written (or last written), for the user.
    public private(set) var currentPath: URL
    /// The format of `currentPath`; kept after `close` so a same-format `open` continues the file.
    public private(set) var currentFormat: PCMFormat?

    /// 1 for `basePath`, n for `name.n.wav`.
    private var fileNumber = 0
    private var fd: Int32 = -1
    /// Bytes in the data chunk of the current file, including those still in `buffer`.
    private var dataBytes: Int = 0
    /// Pending little-endian float bytes: one syscall per 64 KiB, not one per `write`.
    private var buffer: [UInt8] = []
    private static let bufferSize = 64 * 1024
    private let maxDataBytes: Int

    static let headerSize = 58

    /// Nil: as fast as written.
    private var clock: SampleClock?
    public var keepsTime: Bool { clock != nil }

    /// `clock`: written at the pace it keeps; nil, as fast as written.
    public convenience init(path: URL, clock: SampleClock? = nil) {
        // The RIFF size field (data + 50 header bytes) must fit in 32 bits.
        self.init(path: path, maxDataBytes: Int(UInt32.max) - 50, clock: clock)
    }

    /// `maxDataBytes` is lowered by tests to exercise the 4 GiB rollover without writing 4 GiB.
    init(path: URL, maxDataBytes: Int, clock: SampleClock? = nil) {
        self.basePath = path
        self.currentPath = path
        self.maxDataBytes = maxDataBytes
        self.clock = clock
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        close()
    }

    public var destination: String { currentPath.path }

    public func open(_ format: PCMFormat) throws {
        guard format.channels > 0, format.channels <= 0xFFFF / 4, format.sampleRate > 0,
              format.sampleRate * format.channels * 4 <= Int(UInt32.max) else {
            throw OutputError(output: "wav", reason: "cannot write a WAV file for \(format)")
        }
        if format == currentFormat {
            if fd < 0 { try reopenCurrent() }
            return
        }
        try finishFile()
        try startFile(number: fileNumber + 1, format: format)
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard fd >= 0, let format = currentFormat else {
            throw OutputError(output: "wav", reason: "write before open")
        }
        let frameBytes = format.channels * 4
        var rest = UnsafeRawBufferPointer(samples)
        while !rest.isEmpty {
            // Whole frames only go into a file, so a rollover never splits a frame.
            let room = (maxDataBytes - dataBytes) / frameBytes * frameBytes
            if room == 0 {
                try finishFile()
                try startFile(number: fileNumber + 1, format: format)
                continue
            }
            let n = min(room, rest.count)
            try append(UnsafeRawBufferPointer(rebasing: rest[..<n]))
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        clock?.wrote(frames: samples.count / format.channels, rate: format.sampleRate)
    }

    /// Writes out the buffer and fixes the header, so the file is complete as it stands.
    /// No fsync: the data is in the kernel, which is enough for it to outlive this process.
    public func drain() throws {
        guard fd >= 0 else { return }
        try writeBuffer()
        try writeHeader()
        clock?.drain()
    }

    /// A file has nothing to drop: what was written is kept, and the header fixed so the file is complete as it
    /// stands; the pace starts again with the next write.
    public func flush() -> Bool {
        guard fd >= 0, (try? writeBuffer()) != nil, (try? writeHeader()) != nil else { return false }
        clock?.reset()
        return true
    }

    /// Keeps what was written (a file has no device queue to drop) and fixes the header.
    public func close() {
        clock?.reset()
        // close() cannot throw; a failing disk already surfaced from write or drain.
        try? finishFile()
    }

    // MARK: - File handling

    private func path(number: Int) -> URL {
        guard number > 1 else { return basePath }
        let ext = basePath.pathExtension
        let stem = basePath.deletingPathExtension().lastPathComponent
        let name = ext.isEmpty ? "\(stem).\(number)" : "\(stem).\(number).\(ext)"
        return basePath.deletingLastPathComponent().appendingPathComponent(name)
    }

    private func startFile(number: Int, format: PCMFormat) throws {
        let url = path(number: number)
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(output: "wav", reason: "cannot create folder \(folder.path): \(error.localizedDescription)")
        }
        let descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OutputError(output: "wav", reason: "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        fd = descriptor
        fileNumber = number
        currentPath = url
        currentFormat = format
        dataBytes = 0
        buffer.removeAll(keepingCapacity: true)
        do {
            try writeHeader()
            // pwrite leaves the file position alone: data starts after the header.
            guard lseek(descriptor, off_t(Self.headerSize), SEEK_SET) >= 0 else {
                throw OutputError(output: "wav", reason: "cannot seek in \(url.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            closeDescriptor()
            throw error
        }
    }

    /// After `close`, a same-format `open` appends to the file it left.
    private func reopenCurrent() throws {
        let descriptor = Glibc.open(currentPath.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw OutputError(output: "wav", reason: "cannot reopen \(currentPath.path): \(String(cString: strerror(errno)))")
        }
        guard lseek(descriptor, off_t(Self.headerSize + dataBytes), SEEK_SET) >= 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw OutputError(output: "wav", reason: "cannot seek in \(currentPath.path): \(reason)")
        }
        fd = descriptor
    }

    private func finishFile() throws {
        guard fd >= 0 else { return }
        defer { closeDescriptor() }
        try writeBuffer()
        try writeHeader()
    }

    private func closeDescriptor() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        buffer.removeAll(keepingCapacity: true)
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > Self.bufferSize {
            try writeBuffer()
        }
        if bytes.count >= Self.bufferSize {
            // Large writes go straight to the file rather than through the buffer.
            try writeAll(fromLittleEndianFloats: bytes)
        } else {
            appendLittleEndian(bytes, to: &buffer)
        }
        dataBytes += bytes.count
    }

    private func writeBuffer() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(fromLittleEndianFloats bytes: UnsafeRawBufferPointer) throws {
        #if _endian(little)
        try writeAll(bytes)
        #else
        var swapped: [UInt8] = []
        appendLittleEndian(bytes, to: &swapped)
        try swapped.withUnsafeBytes { try writeAll($0) }
        #endif
    }

    /// Floats in the WAV file are little-endian; the host's are copied as is when it is too.
    private func appendLittleEndian(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        #if _endian(little)
        out.append(contentsOf: bytes)
        #else
        for i in stride(from: 0, to: bytes.count, by: 4) {
            out.append(contentsOf: [bytes[i + 3], bytes[i + 2], bytes[i + 1], bytes[i]])
        }
        #endif
    }

    /// Sequential write at the file position; the header goes through `pwrite` so this never moves.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError(output: "wav", reason: "cannot write \(currentPath.path): \(String(cString: strerror(errno)))")
            }
            left -= n
            base += n
        }
    }

    /// The 58-byte header of a WAVE_FORMAT_IEEE_FLOAT file: `fmt ` with cbSize (non-PCM formats
    /// carry it), then the `fact` chunk those formats require, then `data`.
    private func writeHeader() throws {
        guard let format = currentFormat else { return }
        let blockAlign = format.channels * 4
        var h: [UInt8] = []
        h.reserveCapacity(Self.headerSize)
        func tag(_ s: String) { h.append(contentsOf: Array(s.utf8)) }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        tag("RIFF"); u32(Self.headerSize - 8 + dataBytes); tag("WAVE")
        tag("fmt "); u32(18)
        u16(3)                                  // WAVE_FORMAT_IEEE_FLOAT
        u16(format.channels); u32(format.sampleRate)
        u32(format.sampleRate * blockAlign); u16(blockAlign); u16(32)
        u16(0)                                  // cbSize
        tag("fact"); u32(4); u32(dataBytes / blockAlign)
        tag("data"); u32(dataBytes)
        let written = h.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == h.count else {
            throw OutputError(output: "wav", reason: "cannot write the header of \(currentPath.path): \(String(cString: strerror(errno)))")
        }
    }
}
