public import CrateDomain
public import Foundation

/// A stream that cannot seek and has no known length, as a live radio stream: the bytes of a file, read once.
public final class LiveStream: ByteStream {
    private let file: FileByteStream
    public init(_ url: URL) throws { file = try FileByteStream(url) }
    public var name: String { "live:" + file.name }
    public var contentType: String? { nil }
    public var suffixHint: String? { nil }
    public var size: Int64? { nil }
    public var isSeekable: Bool { false }
    public var position: Int64 { file.position }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try file.read(into: buffer) }
    public func seek(to offset: Int64) throws { throw ByteStreamError.notSeekable(name: name) }
}
