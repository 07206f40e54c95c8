import Foundation

/// The `sources.urlstream.*` block.
public struct URLStreamConfig: Sendable, Hashable {
    /// Bytes buffered ahead of the decoder (the engine buffers two seconds of samples after it).
    public var bufferBytes = 512 * 1024
    public var connectTimeout: Double = 10
    /// Seconds without a byte before a connection counts as dropped (a live stream then reconnects).
    public var readTimeout: Double = 15
    public var reconnectAttempts = 5
    /// The first reconnection's pause, doubled each time.
    public var reconnectDelay: Double = 0.5
    public var userAgent = "Crate/0.1 (+internet radio; Icy-MetaData)"

    public init() {}
}
