/// A config problem, naming the key (and file) and what would be accepted.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    case missingFile(path: String)
    case invalidValue(key: String, value: String, accepted: String)

    public var description: String {
        switch self {
        case let .unreadableFile(path, reason): "config file \(path) cannot be read: \(reason)"
        case let .missingFile(path): "config file \(path) does not exist"
        case let .invalidValue(key, value, accepted):
            "config key '\(key)' (env \(SettingsLoader.environmentName(for: key))) has the invalid value '\(value)'; accepted: \(accepted)"
        }
    }
}
