import Foundation

/// One of the player's outputs as clients see it (`GET /api/v1/outputs`, MPD's `outputs`, `crate outputs`).
public struct OutputState: Sendable, Hashable, Codable {
    /// The output plugin's name, which is also the output's: `pulse`, `stream`, `fifo`.
    public var name: String
    /// Where the sound goes, once the output has opened: "PulseAudio (default sink)", "/data/output.wav".
    public var destination: String?
    public var enabled: Bool
    /// A sound card in this room (PulseAudio, ALSA).
    public var isDevice: Bool
    /// Why the output is not working, while it is not (it is tried again; the other outputs go on).
    public var error: String?
    /// Where crated serves what this output broadcasts (`/stream.opus`), for outputs heard over the network.
    public var listenPath: String?
    /// How many listen there now, for outputs heard over the network.
    public var listeners: Int?
    /// Counts this output's changes since crated started (switched, failed, working again): of two states of one
    /// output, the one with the larger revision is the later. A client that reads both the answer to its own switch
    /// and `output` events, which come on another connection, keeps the later rather than the last to arrive.
    public var revision: Int

    public init(name: String, destination: String? = nil, enabled: Bool, isDevice: Bool = false, error: String? = nil,
                listenPath: String? = nil, listeners: Int? = nil, revision: Int = 0) {
        self.name = name
        self.destination = destination
        self.enabled = enabled
        self.isDevice = isDevice
        self.error = error
        self.listenPath = listenPath
        self.listeners = listeners
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey {
        case name, destination, enabled, error, listeners, revision
        case isDevice = "device"
        case listenPath = "stream"
    }

    /// "stream on", "pulse off", "pulse failed: …", for the event stream and logs.
    public var summary: String {
        if let error, enabled { return "\(name) failed: \(error)" }
        return "\(name) \(enabled ? "on" : "off")"
    }
}
