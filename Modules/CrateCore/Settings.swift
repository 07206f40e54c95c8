import CrateDomain
import Foundation

/// Crate's typed settings, read once at start-up from the config file and `CRATE_*` environment
/// variables (the environment wins). See Docs/CONFIG.md for every key.
public struct Settings: Sendable, Hashable {
    public var configFile: URL?
    public var dataDirectory: URL
    public var enabledSources: [String]
    /// Decoder names to try first, in order; the rest follow in registration order.
    public var decoderOrder: [String]
    public var disabledDecoders: [String]
    /// `auto`, or an output plugin name.
    public var output: String
    public var pulseServer: String?
    public var pulseSink: String?
    public var wavOutputPath: URL
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
    /// The Apple Music catalog source (`catalog.*`). Tokens are secrets: never printed or logged.
    public var catalog = CatalogSettings()
    /// Who may reach the HTTP API and how much they may send (`http.*`).
    public var http = HTTPSettings()

    public var databaseURL: URL { dataDirectory.appendingPathComponent("library.sqlite") }
    /// Where copy imports put their files.
    public var libraryFolder: URL { dataDirectory.appendingPathComponent("library", isDirectory: true) }
    public var artworkFolder: URL { dataDirectory.appendingPathComponent("artwork", isDirectory: true) }

    public static let defaultHTTPPort = 6610
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Defaults for a data directory; used as the base the loader overrides.
    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
        enabledSources = ["localfiles", "applecatalog"]
        decoderOrder = []
        disabledDecoders = []
        output = "auto"
        wavOutputPath = dataDirectory.appendingPathComponent("output.wav")
        httpHost = "127.0.0.1"
        httpPort = Self.defaultHTTPPort
        logLevel = "info"
        deleteOriginals = false
        importFolder = dataDirectory.appendingPathComponent("import", isDirectory: true)
        artworkRepairLimit = 500
        thumbnailSize = 300
    }
}

/// `catalog.*`: credentials and limits of the Apple Music catalog source.
public struct CatalogSettings: Sendable, Hashable {
    public var teamID: String?
    public var keyID: String?
    public var keyPath: String?
    public var developerToken: String?
    public var userToken: String?
    public var userTokenFile: String?
    public var storefront = "us"
    public var baseURL: URL?
    public var requestsPerSecond = 20.0

    public init() {}

    /// Whether the user set up any credential at all (a catalog nobody configured is quietly unavailable).
    public var hasAnyCredential: Bool {
        [teamID, keyID, keyPath, developerToken, userToken, userTokenFile].contains { $0 != nil }
    }
}
