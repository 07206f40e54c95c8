public import Foundation

/// Keeps the first bytes of a stream that cannot seek, so the decoder registry can look at them (sniffing) and
/// let each candidate decoder start again from byte 0, as long as it read no further than the kept head.
public final class RewindableStream: ByteStream {
    private let base: any ByteStream
    private var head = Data()
    private let headLimit: Int
    /// Where the next read starts within `head`; nil once reading went past it (no rewind possible).
    private var cursor: Int? = 0
    public private(set) var position: Int64 = 0

    public init(_ base: any ByteStream, headLimit: Int = 256 * 1024) {
        self.base = base
        self.headLimit = headLimit
    }

    public var name: String { base.name }
    public var contentType: String? { base.contentType }
    public var suffixHint: String? { base.suffixHint }
    public var size: Int64? { base.size }
    public var isSeekable: Bool { base.isSeekable }
    public var metadata: StreamMetadata? { base.metadata }
    public var localFile: URL? { base.localFile }

    /// The first `count` bytes (fewer at the end of a short stream), read now if needed.
    public func peek(_ count: Int) throws -> Data {
        while head.count < min(count, headLimit), cursor != nil {
            var chunk = [UInt8](repeating: 0, count: min(count, headLimit) - head.count)
            let n = try chunk.withUnsafeMutableBytes { try base.read(into: $0) }
            if n == 0 { break }
            head.append(contentsOf: chunk[0..<n])
        }
        return head.prefix(count)
    }

    /// Back to byte 0 for the next decoder; false when bytes past the kept head were already handed out.
    public func rewind() -> Bool {
        // Within the kept head no byte is read again, even from a stream that could seek (an HTTP seek is a request).
        if cursor != nil {
            cursor = 0
            position = 0
            return true
        }
        return base.isSeekable && (try? seek(to: 0)) != nil
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let at = cursor {
            if at < head.count {
                let n = min(buffer.count, head.count - at)
                head.withUnsafeBytes { raw in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[at..<at + n])) }
                cursor = at + n
                position += Int64(n)
                return n
            }
            // Past the head: grow it while there is room, so a rewind stays possible; else stream on.
            if head.count < headLimit {
                let n = try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, headLimit - head.count)]))
                head.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                cursor = head.count
                position += Int64(n)
                return n
            }
            cursor = nil
        }
        let n = try base.read(into: buffer)
        position += Int64(n)
        return n
    }

    public func seek(to offset: Int64) throws {
        if offset == position { return }
        // Inside the kept head (the base still stands at its end), only the cursor moves.
        if cursor != nil, offset >= 0, offset <= Int64(head.count) {
            cursor = Int(offset)
            position = offset
            return
        }
        guard base.isSeekable else { throw ByteStreamError.notSeekable(name: name) }
        try base.seek(to: offset)
        cursor = nil
        head = Data()
        position = offset
    }
}
