public import Foundation

/// Bytes a decoder reads: a file, an HTTP response, a radio stream (MPD's InputStream idea). Decoders read
/// through this instead of opening paths, so every codec plays from any input provider.
///
/// One reader at a time: the pipeline's decoder thread owns it. Reads block until data arrives or the stream
/// ends; errors are `ByteStreamError`s naming the stream.
public protocol ByteStream: AnyObject {
    /// Where the bytes come from, for messages: a path or a URL (never with credentials).
    var name: String { get }
    /// The MIME type the transport declared (HTTP `Content-Type`), lower case without parameters; nil for files.
    var contentType: String? { get }
    /// The file suffix the name suggests (`flac`), lower case; nil when there is none.
    var suffixHint: String? { get }
    /// Total length in bytes when known (files, HTTP with Content-Length); nil for live streams.
    var size: Int64? { get }
    /// Whether `seek` works (files, HTTP servers with ranges); live radio is not seekable.
    var isSeekable: Bool { get }
    /// Bytes read so far from the start (after seeks, the new place).
    var position: Int64 { get }
    /// Reads up to `buffer.count` bytes into `buffer`; returns 0 only at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Moves to `offset` bytes from the start. Throws `ByteStreamError.notSeekable` when the stream cannot.
    func seek(to offset: Int64) throws
    /// In-band metadata that changes while it plays (ICY `StreamTitle`), newest first; nil when the stream has none.
    var metadata: StreamMetadata? { get }
    /// The local file underneath, when the bytes are one (checks that need the file, such as a damaged Ogg tail).
    var localFile: URL? { get }
}

extension ByteStream {
    public var metadata: StreamMetadata? { nil }
    public var localFile: URL? { nil }

    /// Reads until `buffer` is full or the stream ends; the count read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }
}

/// Metadata a stream carries in band. `generation` grows with each change, so a reader notices a new title
/// even when the text repeats.
public struct StreamMetadata: Sendable, Hashable {
    public var title: String?
    /// The station's name (`icy-name`), when the server gives one.
    public var stationName: String?
    public var generation: Int

    public init(title: String?, stationName: String? = nil, generation: Int) {
        self.title = title
        self.stationName = stationName
        self.generation = generation
    }
}

public enum ByteStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotOpen(name: String, reason: String)
    case notSeekable(name: String)
    case readFailed(name: String, reason: String)
    /// An HTTP answer that is not audio: a status (404), an HTML page, a TLS failure.
    case notAudio(name: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(name, reason): "cannot open \(name): \(reason)"
        case let .notSeekable(name): "\(name) cannot seek (a live stream)"
        case let .readFailed(name, reason): "reading \(name) failed: \(reason)"
        case let .notAudio(name, reason): "\(name) is not audio: \(reason)"
        }
    }
}

/// Opens byte streams for the URL schemes it claims (`file`; `http`, `https`). Input providers come from plugins
/// and are chosen by scheme, as sources are.
public protocol InputProvider: Sendable {
    var name: String { get }
    var schemes: [String] { get }
    func open(_ url: URL) throws -> any ByteStream
}
