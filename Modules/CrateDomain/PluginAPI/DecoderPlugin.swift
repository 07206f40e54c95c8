public import Foundation

/// What a decoder learned from a file without decoding it: tags, stream facts and the embedded cover.
public struct ProbedFile: Sendable, Hashable {
    public var tags: TrackTags
    public var info: StreamInfo
    public var picture: EmbeddedPicture?

    public init(tags: TrackTags, info: StreamInfo, picture: EmbeddedPicture? = nil) {
        self.tags = tags
        self.info = info
        self.picture = picture
    }
}

/// A decoder provider. It is stateless and shared; each `open` returns a fresh `AudioDecoder`.
/// Errors are `DecodeError`s naming the file and the reason.
public protocol DecoderPlugin: Sendable {
    /// Short unique name used in config and `crate plugins`: "flac", "mp3", ...
    var name: String { get }
    /// File suffixes it opens, lower case, without the dot.
    var suffixes: [String] { get }
    var mimeTypes: [String] { get }
    var status: PluginStatus { get }

    /// Reads tags, format, exact length and the embedded front cover through the codec library's metadata API.
    func probe(_ url: URL) throws -> ProbedFile
    /// Opens the file for decoding to PCM.
    func open(_ url: URL) throws -> any AudioDecoder

    /// Opens a byte stream (a file, an HTTP response, a radio stream) for decoding. The default reads local files
    /// only, through `open(URL)`; decoders that read through their library's callback API override it.
    func open(stream: any ByteStream) throws -> any AudioDecoder
    /// Whether the first bytes of a stream are this decoder's format (magic numbers), so the registry can pick a
    /// decoder whatever the name or declared type says.
    func recognizes(head: Data) -> Bool
}

extension DecoderPlugin {
    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        if let file = stream.localFile { return try open(file) }
        throw DecodeError(path: stream.name, reason: "the \(name) decoder reads local files only, not streams")
    }

    public func recognizes(head: Data) -> Bool { false }
}

/// One open stream being decoded. Not shared between threads: the pipeline owns it.
/// Resources are released when the decoder is deinitialised.
public protocol AudioDecoder: AnyObject {
    /// Format of the PCM `read` produces, and the exact length when known.
    var info: StreamInfo { get }
    /// Decodes into `buffer` (interleaved float) up to `buffer.count / channels` whole frames.
    /// Returns the number of frames written; 0 means the end of the stream.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int
    /// Moves so the next `read` starts at `frame` (0-based, in output frames, clamped to the length).
    /// Sample-exact for every codec Crate ships.
    func seek(toFrame frame: Int64) throws
}
