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
        PluginSettingKey("transcode", default: "",
                         help: "Default transcoding by app or account, first match wins: client:DSub=opus 128, user:bob=mp3 192, *=raw"),
    ]

    var enabled = true
    var host = "127.0.0.1"
    var port = SubsonicSettings.defaultPort
    var maxConnections = SubsonicSettings.defaultMaxConnections
    var transcode: [TranscodeRule] = []

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
        if let text = block.string("transcode") {
            switch TranscodeRule.parse(text) {
            case .success(let rules): transcode = rules
            case .failure(let error):
                throw ConfigError.invalidValue(key: block.key("transcode"), value: error.rule,
                                               accepted: "\(error.why), e.g. client:DSub=opus 128, user:bob=mp3 192, *=raw")
            }
        }
    }

    /// The first rule for this app or account.
    func rule(client: String?, user: String) -> TranscodeRule? { transcode.first { $0.matches(client: client, user: user) } }

    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
