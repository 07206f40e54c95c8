import CrateCore
import CrateDomain

/// Where crated speaks the MPD protocol (`mpd.address`, `off` to turn it off) and the password MPD clients send
/// (`mpd.password`), read from the front end's own block. As for HTTP: loopback needs none; any other address needs a
/// password.
struct MPDSettings: Sendable, Hashable {
    static let defaultPort = 6600
    static let keys = [
        PluginSettingKey("address", default: "127.0.0.1:\(defaultPort)",
                         help: "Where MPD clients connect (HOST:PORT), or off; off loopback a password is required"),
        PluginSettingKey("password", secret: true, help: "The password MPD clients send (mpc -h PASSWORD@HOST)"),
    ]

    var enabled = true
    var host = "127.0.0.1"
    var port = MPDSettings.defaultPort
    var password: String?

    init() {}

    init(_ block: PluginSettings) throws {
        if let address = block.string("address") {
            if address == "off" {
                enabled = false
            } else {
                (host, port) = try SettingsLoader.parseAddress(address, key: block.key("address"), example: Self.defaultPort)
            }
        }
        password = block.string("password")
    }

    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether an MPD client's `password` is the configured one (compared in constant time).
    func accepts(password presented: String) -> Bool {
        guard let password else { return true }
        return HTTPSettings.sameBytes(presented, password)
    }

    /// Off loopback without a password, anyone on the network could drive the player: refused at start-up.
    func checkExposure() throws {
        if enabled, !HTTPSettings.isLoopback(host), password == nil {
            throw ConfigError.invalidValue(key: "mpd.address", value: address,
                                           accepted: "a loopback address (127.0.0.1, ::1), or set mpd.password to listen on \(host)")
        }
    }
}
