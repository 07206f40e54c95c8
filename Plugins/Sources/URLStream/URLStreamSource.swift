public import CrateDomain
import Foundation

/// `http:` and `https:` tracks: internet radio and files on web servers. The tracks' refs are their URLs; the bytes
/// come through `HTTPInputProvider` (libcurl), which this plugin also brings.
public struct URLStreamSource: SourcePlugin {
    public let name = "urlstream"
    public let schemes = ["http", "https"]
    public let status: PluginStatus
    let config: URLStreamConfig

    public init(config: URLStreamConfig = URLStreamConfig(), problem: String? = nil) {
        self.config = config
        status = problem.map { .unavailable(reason: $0) } ?? .available
    }

    public func locate(_ ref: TrackRef) throws -> PlayableLocation {
        guard let url = URL(string: ref.id), schemes.contains(url.scheme?.lowercased() ?? "") else {
            throw ByteStreamError.cannotOpen(name: ref.id, reason: "not an http(s) URL")
        }
        return .stream(url)
    }

    public static let registration = PluginRegistration(kind: .source, name: "urlstream", keys: [
        .init("buffer_kb", default: "\(URLStreamConfig().bufferBytes / 1024)", help: "KiB read ahead of the decoder, 16–65536 (default 512)"),
        .init("connect_timeout", default: String(format: "%g", URLStreamConfig().connectTimeout), help: "seconds to wait for a server, 1–120 (default 10)"),
        .init("reconnect_attempts", default: "\(URLStreamConfig().reconnectAttempts)", help: "reconnections of a live stream that dropped, 0–100 (default 5)"),
    ]) { settings in
        var config = URLStreamConfig()
        var problem: String?
        func number(_ key: String, _ range: ClosedRange<Double>, _ apply: (Double) -> Void) {
            guard let text = settings.string(key) else { return }
            guard let n = Double(text), range.contains(n) else {
                problem = problem ?? settings.problem(key, text, accepted: "a number from \(range.lowerBound) to \(range.upperBound)")
                return
            }
            apply(n)
        }
        number("buffer_kb", 16...65536) { config.bufferBytes = Int($0) * 1024 }
        number("connect_timeout", 1...120) { config.connectTimeout = $0 }
        number("reconnect_attempts", 0...100) { config.reconnectAttempts = Int($0) }
        return PluginParts(sources: [URLStreamSource(config: config, problem: problem)], inputs: [HTTPInputProvider(config: config)])
    }
}
