public import CrateDomain
public import Foundation

/// An http(s) resource as a byte stream: a file on a web server (seekable when the server takes ranges) or a live
/// radio stream (not seekable; reconnects by itself; ICY titles as `metadata`).
public final class HTTPByteStream: ByteStream {
    public let url: URL
    private let config: URLStreamConfig
    private var connection: HTTPConnection
    public private(set) var position: Int64 = 0

    /// Connects and waits for the answer's headers: a 404, a TLS failure or an HTML page fail here, clearly.
    public init(url: URL, config: URLStreamConfig = URLStreamConfig()) throws {
        self.url = url
        self.config = config
        connection = HTTPConnection(url: url, config: config, offset: 0)
        do { try connection.waitForHeaders() } catch {
            connection.cancel()
            throw error
        }
    }

    deinit { connection.cancel() }

    public var name: String { url.absoluteString }
    public var contentType: String? { connection.contentType }
    public var suffixHint: String? { url.pathExtension.isEmpty ? nil : url.pathExtension.lowercased() }
    public var size: Int64? { connection.contentLength }
    public var isSeekable: Bool { connection.contentLength != nil && connection.acceptsRanges }
    public var metadata: StreamMetadata? { connection.currentMetadata }
    /// How many connections this stream made (reconnections of a live stream included).
    public var connections: Int { connection.connections }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try connection.read(into: buffer)
        position += Int64(n)
        return n
    }

    /// Starts a new transfer at `offset` with a Range request.
    public func seek(to offset: Int64) throws {
        if offset == position { return }
        guard isSeekable else { throw ByteStreamError.notSeekable(name: name) }
        connection.cancel()
        connection = HTTPConnection(url: url, config: config, offset: offset)
        try connection.waitForHeaders()
        position = offset
    }
}
