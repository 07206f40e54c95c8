/// Where crated speaks the MPD protocol (`mpd.address`, `off` to turn it off) and the password MPD clients send
/// (`mpd.password`). As for HTTP: loopback needs none; any other address needs a password.
public struct MPDSettings: Sendable, Hashable {
    public static let defaultPort = 6600
    public var enabled = true
    public var host = "127.0.0.1"
    public var port = MPDSettings.defaultPort
    public var password: String?

    public init() {}

    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether an MPD client's `password` is the configured one (compared in constant time).
    public func accepts(password presented: String) -> Bool {
        guard let password else { return true }
        return HTTPSettings.sameBytes(presented, password)
    }

    /// Off loopback without a password, anyone on the network could drive the player: refused at start-up.
    public func checkExposure() throws {
        if enabled, !HTTPSettings.isLoopback(host), password == nil {
            throw ConfigError.invalidValue(key: "mpd.address", value: address,
                                           accepted: "a loopback address (127.0.0.1, ::1), or set mpd.password to listen on \(host)")
        }
    }
}
