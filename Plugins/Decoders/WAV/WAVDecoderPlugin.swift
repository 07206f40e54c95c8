public import CrateDomain
public import Foundation

/// RIFF WAVE with integer PCM (8/16/24/32-bit) or IEEE float samples, plain or WAVE_FORMAT_EXTENSIBLE.
/// No codec library: the container is simple enough to parse here, with every size checked
/// against the real file length.
public struct WAVDecoderPlugin: DecoderPlugin {
    public let name = "wav"
    public let suffixes = ["wav", "wave"]
    public let mimeTypes = ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"]

    /// `RIFF` … `WAVE`.
    public func recognizes(head: Data) -> Bool {
        head.count >= 12 && head.prefix(4).elementsEqual("RIFF".utf8) && head.dropFirst(8).prefix(4).elementsEqual("WAVE".utf8)
    }
    public let status = PluginStatus.available

    public init() {}

    public func probe(_ url: URL) throws -> ProbedFile {
        _ = try AudioFileCheck.readableSize(url)
        let layout = try WAVLayout(WAVInput(try FileByteStream(url)))
        return ProbedFile(tags: layout.tags, info: layout.info)
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        _ = try AudioFileCheck.readableSize(url)
        return try WAVAudioDecoder(stream: try FileByteStream(url))
    }

    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        try WAVAudioDecoder(stream: stream)
    }
}

/// Where the samples are and how they are stored, from the `fmt `, `data`, `LIST/INFO` and `id3 ` chunks.
struct WAVLayout {
    enum Encoding {
        case unsigned8, signed16, signed24, signed32, float32, float64
    }

    var encoding: Encoding
    var channels: Int
    var sampleRate: Int
    /// Significant bits, which may be fewer than the container's (20 bits in 24, say).
    var bitsPerSample: Int
    /// Bytes per frame, all channels.
    var blockAlign: Int
    var dataOffset: UInt64
    var dataLength: UInt64
    var tags: TrackTags

    var frames: Int64 { Int64(dataLength) / Int64(blockAlign) }

    var info: StreamInfo {
        StreamInfo(codec: "wav", sampleRate: sampleRate, channels: channels, bitsPerSample: bitsPerSample, frames: frames)
    }

    /// More chunks than any real file has; stops a file of empty chunks from making probing slow.
    static let maxChunks = 10_000
    /// INFO text larger than this is not tags worth reading.
    static let maxListSize: UInt64 = 1 << 20
    /// Extensible is the largest `fmt ` body there is (40 bytes); allow room for vendor extras.
    static let maxFmtSize: UInt64 = 4096
    /// Streaming writers put this in the data size when the length is not known yet.
    static let unknownSize: UInt32 = 0xFFFF_FFFF

    init(_ file: WAVInput) throws {
        // A stream of unknown length (a WAV sent live) ends where its reads end.
        let fileSize = file.stream.size.map { UInt64(max(0, $0)) } ?? UInt64(Int64.max)
        let name = file.stream.name
        func fail(_ reason: String) -> DecodeError { DecodeError(path: name, reason: reason) }

        let header = try file.read(at: 0, count: 12)
        guard header.count == 12 else { throw fail("not a WAV file: too short for a RIFF header") }
        switch String(decoding: header[0..<4], as: UTF8.self) {
        case "RIFF": break
        case "RF64": throw fail("RF64 (64-bit) WAV files are not supported")
        case "RIFX": throw fail("big-endian RIFX WAV files are not supported")
        default: throw fail("not a WAV file (no RIFF header)")
        }
        guard String(decoding: header[8..<12], as: UTF8.self) == "WAVE" else { throw fail("not a WAV file (RIFF but not WAVE)") }

        var format: (encoding: Encoding, channels: Int, rate: Int, bits: Int, blockAlign: Int)?
        var data: (offset: UInt64, length: UInt64)?
        var mapper = TagMapper()
        // INFO is read after the loop, below an ID3 tag: tools that write both put more in ID3 (totals, album artist).
        var info: [UInt8]?
        // The RIFF size field is often wrong (streamed writers); the real file length is what counts.
        var offset: UInt64 = 12
        var chunks = 0
        while offset + 8 <= fileSize, chunks < Self.maxChunks {
            chunks += 1
            let head = try file.read(at: offset, count: 8)
            guard head.count == 8 else { break }
            let id = String(decoding: head[0..<4], as: UTF8.self)
            let declared = Self.u32(head, 4)
            let body = offset + 8
            let available = fileSize - body
            var size = UInt64(declared)
            if size > available {
                if id == "data" {
                    // A placeholder size is the writer's "until the end"; any other overrun is a cut file.
                    guard declared == Self.unknownSize || data != nil else {
                        throw fail("truncated: the data chunk declares \(declared) bytes but only \(available) are in the file")
                    }
                    size = available
                } else if data != nil {
                    break  // Damage after the audio: keep what was found.
                } else {
                    throw fail("truncated: chunk '\(Self.printable(id))' declares \(declared) bytes but only \(available) are in the file")
                }
            }
            switch id {
            case "fmt " where format == nil:
                guard size >= 16, size <= Self.maxFmtSize else { throw fail("damaged fmt chunk (\(size) bytes)") }
                format = try Self.parseFormat(try file.read(at: body, count: Int(size)), name: name)
            case "data" where data == nil:
                data = (body, size)
            case "LIST" where size >= 4 && size <= Self.maxListSize && info == nil:
                info = try file.read(at: body, count: Int(size))
            case let tag where (tag == "id3 " || tag == "ID3 ") && size >= 10 && size <= Self.maxListSize:
                ID3Chunk.read(try file.read(at: body, count: Int(size)), into: &mapper)
            default:
                break
            }
            // Chunks are padded to an even length.
            offset = body + size + (size & 1)
        }

        if let info { Self.parseInfo(info, into: &mapper) }
        guard let format else { throw fail(data == nil ? "not a WAV file: no fmt or data chunk" : "damaged WAV file: no fmt chunk") }
        guard let data else { throw fail("damaged WAV file: no data chunk") }
        encoding = format.encoding
        channels = format.channels
        sampleRate = format.rate
        bitsPerSample = format.bits
        blockAlign = format.blockAlign
        dataOffset = data.offset
        dataLength = data.length
        tags = mapper.tags
    }

    private static func parseFormat(_ fmt: [UInt8], name: String) throws -> (encoding: Encoding, channels: Int, rate: Int, bits: Int, blockAlign: Int) {
        func fail(_ reason: String) -> DecodeError { DecodeError(path: name, reason: reason) }
        // The chunk size was checked against the file, but the file may have shrunk since.
        guard fmt.count >= 16 else { throw fail("truncated: the fmt chunk is cut short") }
        var tag = Int(u16(fmt, 0))
        let channels = Int(u16(fmt, 2)), rate = Int(u32(fmt, 4)), blockAlign = Int(u16(fmt, 12))
        let container = Int(u16(fmt, 14))
        var bits = container
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
            guard fmt.count >= 40, u16(fmt, 16) >= 22 else { throw fail("damaged fmt chunk: short WAVE_FORMAT_EXTENSIBLE") }
            let valid = Int(u16(fmt, 18))
            if valid > 0, valid <= container { bits = valid }
            tag = Int(u16(fmt, 24))
        }
        guard channels > 0 else { throw fail("damaged fmt chunk: no channels") }
        guard rate > 0 else { throw fail("damaged fmt chunk: sample rate 0") }
        let encoding: Encoding
        switch (tag, container) {
        case (1, 8): encoding = .unsigned8
        case (1, 16): encoding = .signed16
        case (1, 24): encoding = .signed24
        case (1, 32): encoding = .signed32
        case (3, 32): encoding = .float32
        case (3, 64): encoding = .float64
        case (1, _), (3, _): throw fail("unsupported WAV sample size: \(container) bits")
        default: throw fail("unsupported WAV encoding \(formatName(tag)); only PCM and IEEE float are supported")
        }
        guard blockAlign == channels * container / 8 else {
            throw fail("damaged fmt chunk: block size \(blockAlign) for \(channels) channels of \(container) bits")
        }
        return (encoding, channels, rate, bits, blockAlign)
    }

    /// `LIST` chunks of type `INFO` hold `ID  size  text\0` entries.
    private static func parseInfo(_ list: [UInt8], into mapper: inout TagMapper) {
        guard list.count >= 4, String(decoding: list[0..<4], as: UTF8.self) == "INFO" else { return }
        var offset = 4
        while offset + 8 <= list.count {
            let id = String(decoding: list[offset..<offset + 4], as: UTF8.self)
            let size = Int(u32(list, offset + 4))
            let start = offset + 8
            guard size <= list.count - start else { return }
            var text = list[start..<start + size]
            while let last = text.last, last == 0 { text = text.dropLast() }
            // INFO text has no declared encoding: UTF-8 from modern tools, Latin-1 from old ones.
            let value = String(bytes: text, encoding: .utf8) ?? String(text.map { Character(Unicode.Scalar($0)) })
            mapper.riffInfo(id, value)
            offset = start + size + (size & 1)
        }
    }

    private static func formatName(_ tag: Int) -> String {
        let names = [0x2: "MS ADPCM", 0x6: "A-law", 0x7: "µ-law", 0x11: "IMA ADPCM", 0x50: "MPEG", 0x55: "MP3"]
        let hex = "0x" + String(tag, radix: 16, uppercase: true)
        return names[tag].map { "\($0) (\(hex))" } ?? hex
    }

    private static func printable(_ id: String) -> String {
        String(id.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }

    static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
}

/// Positioned reads over a byte stream whose failures become `DecodeError`s: a seekable stream moves, one that
/// cannot seek (a WAV sent live) is read forward only, which is all the layout and `read` need.
final class WAVInput {
    let stream: any ByteStream

    init(_ stream: any ByteStream) { self.stream = stream }

    /// Up to `count` bytes from `offset`; fewer at the end of the stream.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        do {
            let target = Int64(clamping: offset)
            if stream.position != target {
                if stream.isSeekable {
                    try stream.seek(to: target)
                } else if target > stream.position {
                    var skip = [UInt8](repeating: 0, count: Int(min(65536, target - stream.position)))
                    while stream.position < target {
                        let want = Int(min(Int64(skip.count), target - stream.position))
                        let n = try skip.withUnsafeMutableBytes { try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want])) }
                        if n == 0 { return [] }
                    }
                } else {
                    throw DecodeError(path: stream.name, reason: "cannot go back to byte \(offset) in a stream that cannot seek")
                }
            }
            var bytes = [UInt8](repeating: 0, count: count)
            let n = try bytes.withUnsafeMutableBytes { try stream.readFully(into: $0) }
            bytes.removeLast(count - n)
            return bytes
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError(path: stream.name, reason: "read error: \(ErrorText.describe(error))")
        }
    }
}

public final class WAVAudioDecoder: AudioDecoder {
    public let info: StreamInfo
    private let layout: WAVLayout
    private let file: WAVInput
    /// Frames handed out so far.
    private var position: Int64 = 0

    init(stream: any ByteStream) throws {
        file = WAVInput(stream)
        layout = try WAVLayout(file)
        info = layout.info
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = layout.channels
        // Bounded by the caller's buffer, so a huge data chunk never means a huge allocation.
        let wanted = Int(min(Int64(buffer.count / channels), layout.frames - position))
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        let bytes = try file.read(at: layout.dataOffset + UInt64(position) * UInt64(layout.blockAlign),
                                  count: wanted * layout.blockAlign)
        let frames = bytes.count / layout.blockAlign
        guard frames > 0 else {
            throw DecodeError(path: file.stream.name, reason: "truncated: the file ends at frame \(position) of \(layout.frames)")
        }
        let samples = frames * channels
        bytes.withUnsafeBytes { raw in
            switch layout.encoding {
            case .unsigned8:
                for i in 0..<samples { base[i] = (Float(raw[i]) - 128) / 128 }
            case .signed16:
                for i in 0..<samples {
                    base[i] = Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))) / 32768
                }
            case .signed24:
                for i in 0..<samples {
                    let o = i * 3
                    let v = Int32(raw[o]) | Int32(raw[o + 1]) << 8 | Int32(Int8(bitPattern: raw[o + 2])) << 16
                    base[i] = Float(v) / 8_388_608
                }
            case .signed32:
                for i in 0..<samples {
                    base[i] = Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))) / 2_147_483_648
                }
            case .float32:
                for i in 0..<samples {
                    base[i] = Self.clamp(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))))
                }
            case .float64:
                for i in 0..<samples {
                    base[i] = Self.clamp(Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)))))
                }
            }
        }
        position += Int64(frames)
        return frames
    }

    /// Every frame has the same size, so the target's bytes are at a computed offset; `read` starts there.
    public func seek(toFrame frame: Int64) throws {
        position = min(max(frame, 0), layout.frames)
    }

    /// Float files may hold values past full scale, or NaN; the pipeline promises [-1, 1].
    private static func clamp(_ v: Float) -> Float {
        v.isNaN ? 0 : min(max(v, -1), 1)
    }
}
