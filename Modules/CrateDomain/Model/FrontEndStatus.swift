import Foundation

/// One of crated's front ends (HTTP, MPD, MPRIS) as the daemon reports it: whether it serves, and where or why not.
public struct FrontEndStatus: Sendable, Hashable, Codable {
    /// `http`, `mpd`, `mpris`.
    public var name: String
    public var running: Bool
    /// Where it serves (`127.0.0.1:6600`, `org.mpris.MediaPlayer2.crate`), or why it does not.
    public var detail: String

    public init(name: String, running: Bool, detail: String) {
        self.name = name
        self.running = running
        self.detail = detail
    }
}
