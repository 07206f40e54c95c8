import CrateCore
import CrateDomain

/// Where crated speaks the OpenSubsonic API (`subsonic.address`, `off` to turn it off) and how many connections it
/// serves at once (`subsonic.max_connections`), read from the front end's own block. Unlike MPD and the HTTP API, any
/// address is allowed without a further secret: every request signs in with an account's password or API key.
struct SubsonicSettings: Sendable, Hashable {
    /// Navidrome's port, which Subsonic apps suggest.
    static let defaultPort = 4533
    static let defaultMaxConnections = 64
    static let keys = [
        PluginSettingKey("address", default: "127.0.0.1:\(defaultPort)",
                         help: "Where Subsonic apps connect (HOST:PORT; 0.0.0.0:\(defaultPort) for the home network), or off"),
        PluginSettingKey("max_connections", default: String(defaultMaxConnections),
                         help: "Connections served at once; more wait for a free one"),
    ]

    var enabled = true
    var host = "127.0.0.1"
    var port = SubsonicSettings.defaultPort
    var maxConnections = SubsonicSettings.defaultMaxConnections

    init() {}

    init(_ block: PluginSettings) throws {
        if let address = block.string("address") {
            if address == "off" {
                enabled = false
            } else {
                (host, port) = try SettingsLoader.parseAddress(address, key: block.key("address"), example: Self.defaultPort)
            }
        }
        if let text = block.string("max_connections") {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw ConfigError.invalidValue(key: block.key("max_connections"), value: text, accepted: "a number from 1 to 10000")
            }
            maxConnections = value
        }
    }

    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
