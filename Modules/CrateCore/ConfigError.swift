/// A config problem, naming the key (and file) and what would be accepted.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    case missingFile(path: String)
    case invalidValue(key: String, value: String, accepted: String)
    /// A file holding a secret that other users could read.
    case secretFileTooOpen(key: String, path: String, mode: String)
    case secretFileUnreadable(key: String, path: String, reason: String)
    /// The daemon would listen off loopback with no token.
    case tokenRequired(address: String)

    public var description: String {
        switch self {
        case let .unreadableFile(path, reason): "config file \(path) cannot be read: \(reason)"
        case let .missingFile(path): "config file \(path) does not exist"
        case let .invalidValue(key, value, accepted):
            "config key '\(key)' (env \(SettingsLoader.environmentName(for: key))) has the invalid value '\(value)'; accepted: \(accepted)"
        case let .secretFileTooOpen(key, path, mode):
            "\(key): \(path) can be read by other users (mode \(mode)); run `chmod 600 \(path)`"
        case let .secretFileUnreadable(key, path, reason):
            "\(key): \(path) cannot be read: \(reason)"
        case let .tokenRequired(address):
            "http.address \(address) is reachable from other machines, so crated needs a token: set http.token_file "
                + "(a file only you can read, e.g. `head -c 32 /dev/urandom | base64 > ~/.config/crate/token; chmod 600 ~/.config/crate/token`) "
                + "or http.token (env CRATE_HTTP_TOKEN), or listen on 127.0.0.1"
        }
    }
}
