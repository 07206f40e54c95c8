public import CrateDomain
public import Foundation

/// An http(s) resource as a byte stream: a file on a web server (seekable when the server takes ranges) or a live
/// radio stream (not seekable; reconnects by itself; ICY titles as `metadata`).
public final class HTTPByteStream: ByteStream {
    public let url: URL
    private let config: URLStreamConfig
    private var connection: HTTPConnection
    public private(set) var position: Int64 = 0
    /// What the first answer said; a ranged answer after a seek gives only the rest's length.
    public let contentType: String?
    public let size: Int64?
    public let isSeekable: Bool
    /// Set by a seek to the end or past it: reads give 0 without asking the server for an empty range.
    private var atEnd = false

    /// Connects and waits for the answer's headers: a 404, a TLS failure or an HTML page fail here, clearly.
    public init(url: URL, config: URLStreamConfig = URLStreamConfig()) throws {
        self.url = url
        self.config = config
        connection = HTTPConnection(url: url, config: config, offset: 0)
        do { try connection.waitForHeaders() } catch {
            connection.cancel()
            throw error
        }
        contentType = connection.contentType
        size = connection.contentLength
        isSeekable = connection.contentLength != nil && connection.acceptsRanges
    }

    deinit { connection.cancel() }

    public var name: String { url.absoluteString }
    public var suffixHint: String? { url.pathExtension.isEmpty ? nil : url.pathExtension.lowercased() }
    public var metadata: StreamMetadata? { connection.currentMetadata }
    /// How many connections this stream made (reconnections of a live stream included).
    public var connections: Int { connection.connections }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if atEnd { return 0 }
        let n = try connection.read(into: buffer)
        position += Int64(n)
        return n
    }

    /// Starts a new transfer at `offset` with a Range request (none at the end: nothing is left to ask for).
    public func seek(to offset: Int64) throws {
        if offset == position && !atEnd { return }
        guard isSeekable, let size, offset >= 0 else { throw ByteStreamError.notSeekable(name: name) }
        connection.cancel()
        if offset >= size {
            atEnd = true
            position = offset
            return
        }
        connection = HTTPConnection(url: url, config: config, offset: offset)
        try connection.waitForHeaders()
        // A server that ignored the range would send the whole file again from byte 0.
        guard connection.status == 206 || offset == 0 else {
            throw ByteStreamError.readFailed(name: name, reason: "the server ignored a range request (HTTP \(connection.status))")
        }
        atEnd = false
        position = offset
    }
}
