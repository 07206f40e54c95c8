import Foundation

/// What a codec library's C read/seek/tell callbacks reach through their `void *`: the stream being decoded and
/// the first error it threw (C callbacks can only return -1; the decoder reports this instead, in words).
///
/// Each decoder writes its own `@convention(c)` thunks (every library has its own signatures) and calls these.
/// The decoder owns this object for as long as the library may call back.
public final class StreamCallbacks {
    public let stream: any ByteStream
    public private(set) var failure: (any Error)?
    /// Whether a read found the end of the stream (cleared by a seek).
    public private(set) var reachedEnd = false

    public init(_ stream: any ByteStream) { self.stream = stream }

    /// The pointer to hand the library as its callback context (unretained: the decoder keeps `self` alive).
    public var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    public static func from(_ context: UnsafeMutableRawPointer?) -> StreamCallbacks? {
        context.map { Unmanaged<StreamCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the library should be offered seeking: live streams cannot, and a library told it can would
    /// try to find the end (Ogg, FLAC) and fail.
    public var canSeek: Bool { stream.isSeekable && stream.size != nil }

    /// Bytes read into `buffer`; 0 at the end; -1 on an error (kept in `failure`).
    public func read(_ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        guard let buffer, count > 0 else { return 0 }
        do {
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            if n == 0 { reachedEnd = true }
            return n
        } catch {
            if failure == nil { failure = error }
            return -1
        }
    }

    /// Moves as `lseek` does (`whence` 0 from the start, 1 from here, 2 from the end); the new offset, or -1.
    public func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let target: Int64
        switch whence {
        case 0: target = offset
        case 1: target = stream.position + offset
        case 2:
            guard let size = stream.size else { return -1 }
            target = size + offset
        default: return -1
        }
        guard target >= 0 else { return -1 }
        reachedEnd = false
        do { try stream.seek(to: target) } catch {
            if failure == nil { failure = error }
            return -1
        }
        return target
    }

    public var position: Int64 { stream.position }

    /// The reason to give for a library's failure: the stream's own error when it had one.
    public func reason(else libraryReason: String) -> String {
        failure.map { ErrorText.describe($0) } ?? libraryReason
    }
}
