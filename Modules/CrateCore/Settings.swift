public import CrateDomain
public import Foundation

/// Crate's typed settings, read once at start-up from the config file and `CRATE_*` environment
/// variables (the environment wins). See Docs/CONFIG.md for every key.
public struct Settings: Sendable, Hashable {
    public var configFile: URL?
    public var dataDirectory: URL
    public var enabledSources: [String]
    /// Decoder names to try first, in order; the rest follow in registration order.
    public var decoderOrder: [String]
    public var disabledDecoders: [String]
    /// `auto`, an output plugin's name, or several names comma-separated (`pulse,stream`): every one plays.
    public var output: String
    public var httpHost: String
    public var httpPort: Int
    public var logLevel: String
    /// The import mode from config; nil leaves it to the mode stored at the first import (default copy).
    public var importMode: ImportMode?
    /// Permission for `copy_then_delete` to delete originals.
    public var deleteOriginals: Bool
    /// The folder the daemon imports from at launch ("drop files here").
    public var importFolder: URL
    /// Tracks the launch-time artwork repair looks at, at most, per run.
    public var artworkRepairLimit: Int
    /// Edge of the square thumbnails made for the wall, in pixels.
    public var thumbnailSize: Int
    /// How file names that are not UTF-8 are shown (`import.filename_charset`; see `RawFileName`).
    public var fileNameCharset = FileNameCharset.windows1252
    /// Each plugin's block (`sources.applecatalog` → `storefront` → `gb`), read for the plugins the composition
    /// root lists; the plugins parse and check their own values. Secrets among them are never printed or logged.
    public var pluginValues: [String: [String: String]] = [:]
    /// Things worth saying once at start-up (deprecated keys still in use, keys the config file has that Crate
    /// does not know).
    public var warnings: [String] = []
    /// Where each key set by the file or the environment came from; a key missing here has its default.
    public var origins: [String: SettingOrigin] = [:]
    /// Who may reach the HTTP API and how much they may send (`http.*`).
    public var http = HTTPSettings()
    /// Loudness normalisation (`player.replaygain`, `player.replaygain_preamp`, `player.replaygain_prevent_clipping`).
    public var loudness = LoudnessPolicy()

    public var databaseURL: URL { dataDirectory.appendingPathComponent("library.sqlite") }
    /// Where copy imports put their files.
    public var libraryFolder: URL { dataDirectory.appendingPathComponent("library", isDirectory: true) }
    public var artworkFolder: URL { dataDirectory.appendingPathComponent("artwork", isDirectory: true) }

    public static let defaultHTTPPort = 6610
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Defaults for a data directory; used as the base the loader overrides.
    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
        enabledSources = ["localfiles", "applecatalog", "urlstream"]
        decoderOrder = []
        disabledDecoders = []
        output = "auto"
        httpHost = "127.0.0.1"
        httpPort = Self.defaultHTTPPort
        logLevel = "info"
        deleteOriginals = false
        importFolder = dataDirectory.appendingPathComponent("import", isDirectory: true)
        artworkRepairLimit = 500
        thumbnailSize = 300
    }
}

/// Where a setting's value comes from, as `crate config` shows it.
public enum SettingOrigin: String, Sendable, Hashable {
    case `default`
    case file
    case env
    /// Kept in the library database (the import mode chosen at the first import, the Crate Dial).
    case database
}

extension Settings {
    public func origin(_ key: String) -> SettingOrigin { origins[key] ?? .default }

    /// A plugin's block as the plugin reads it.
    public func plugin(_ block: String) -> PluginSettings {
        PluginSettings(block: block, values: pluginValues[block] ?? [:], dataDirectory: dataDirectory)
    }

    /// Sets one plugin key by its full name (`outputs.pulse.server`); nil removes it. For tests and overrides.
    public mutating func setPluginValue(_ key: String, _ value: String?) {
        guard let dot = key.lastIndex(of: ".") else { return }
        pluginValues[String(key[..<dot]), default: [:]][String(key[key.index(after: dot)...])] = value
    }
}

extension Settings {
    /// The names in an `output.plugin` value (`pulse,stream`), in order.
    public static func outputNames(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
