import CrateAudio
public import CrateDomain
package import CrateStorage
public import Foundation
public import Logging

/// Settings -> registries -> store, from the plugin list the composition root (CratePlugins) hands over. Apps build
/// one and use its services; Core never names a plugin.
public struct CrateRuntime: Sendable {
    public let settings: Settings
    public let plugins: PluginList
    public let sources: SourceRegistry
    public let decoders: DecoderRegistry
    public let outputs: OutputRegistry
    /// Where the engine reads from: files, and whatever input providers plugins bring (http, https).
    public let inputs: InputRegistry
    /// What can encode PCM (transcoding for the Subsonic API and the stream output).
    public let encoders: EncoderRegistry
    /// Inside Core (and its tests and benchmarks): front ends use `collection` and the services.
    package let store: LibraryStore
    public let library: LibraryService
    /// The Apple Music catalog: one client and cache for the runtime's lifetime.
    public let catalog: CatalogService
    public let logger: Logger
    /// Where Core's services publish what they changed; front ends subscribe.
    public let events: EventBus
    /// The household's accounts (the Subsonic API signs in with them).
    public let accounts: AccountService

    /// Loads settings (see `SettingsLoader`) and builds everything from them.
    public static func start(plugins: PluginList, configPath: String? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment,
                             access: LibraryAccess = .readWrite,
                             overrides: (inout Settings) throws -> Void = { _ in }) async throws -> CrateRuntime {
        var settings = try await SettingsLoader.load(configPath: configPath, environment: environment, plugins: plugins)
        try overrides(&settings)
        return try open(settings: settings, plugins: plugins, access: access)
    }

    /// Builds a runtime from settings already loaded: logging set up, deprecation warnings said once.
    public static func open(settings: Settings, plugins: PluginList, access: LibraryAccess = .readWrite) throws -> CrateRuntime {
        CrateLogging.bootstrap(level: settings.logLevel)
        let runtime = try CrateRuntime(settings: settings, plugins: plugins, access: access)
        for warning in settings.warnings { runtime.logger.warning("\(warning)") }
        return runtime
    }

    public init(settings: Settings, plugins: PluginList, access: LibraryAccess = .readWrite,
                logger: Logger = Logger(label: "crate")) throws {
        self.settings = settings
        self.plugins = plugins
        self.logger = logger
        events = EventBus()
        // Only enabled sources are made: a disabled catalog never reads its key.
        let parts = plugins.registrations
            .filter { $0.kind != .source || settings.enabledSources.contains($0.name) }
            .map { $0.parts(settings.plugin($0.block)) }
        sources = try SourceRegistry(parts.flatMap(\.sources))
        catalog = CatalogService(sources: sources)
        decoders = try DecoderRegistry(parts.flatMap(\.decoders), order: settings.decoderOrder,
                                       disabled: settings.disabledDecoders)
        outputs = try OutputRegistry(parts.flatMap(\.outputs), autoOrder: plugins.autoOutputOrder)
        inputs = InputRegistry(parts.flatMap(\.inputs))
        encoders = EncoderRegistry(parts.flatMap(\.encoders))
        store = try LibraryStore(url: settings.databaseURL, access: access == .readOnly ? .readOnly : .readWrite)
        library = LibraryService(settings: settings, store: store, sources: sources, decoders: decoders, logger: logger,
                                 events: events)
        accounts = AccountService(store: store, dataDirectory: settings.dataDirectory, logger: logger)
        // Decoders are not asked for their status here: asking loads their libraries (FFmpeg's: 10-25 ms and memory
        // on every start, issue 30). A file only an unavailable decoder reads fails with why; `crate plugins` lists all.
        for p in sources.plugins {
            guard case .unavailable(let reason) = p.status else { continue }
            // A catalog nobody set up is normal, not worth a warning on every command; `crate plugins` says why.
            let unset = (p as? any CatalogSource).map { !$0.isConfigured } ?? false
            logger.log(level: unset ? .debug : .warning, "source \(p.name) unavailable: \(reason)")
        }
    }

    /// Search over the library's index and the catalogs of sources that have one.
    public var search: SearchService { SearchService(store: store, sources: sources) }
    public var lyrics: LyricsService { LyricsService(store: store) }
    public var playlistFiles: PlaylistFiles { PlaylistFiles(store: store, events: events) }
    /// Sends library tracks encoded (Opus, MP3) for listeners elsewhere.
    public var transcoder: Transcoder { Transcoder(store: store, decoders: decoders, encoders: encoders, logger: logger) }
    /// Playlists and play queues as each account sees them (the owner's playlists are Crate's own).
    public var accountPlaylists: AccountPlaylists { AccountPlaylists(store: store, collection: collection) }
    /// Each account's stars, ratings and plays (the owner's are Crate's own).
    public var listening: Listening { Listening(store: store, collection: collection) }

    /// A setting kept in the library database (`import.mode`, `feeds.dial`), for `crate config`; nil when none is.
    public func storedSetting(_ key: String) -> String? { (try? store.setting(key)) ?? nil }

    /// A feed service (the wall, genre feeds, the dial, likes): the daemon keeps one for its lifetime.
    public func feeds(seed: UInt64? = nil) -> FeedService {
        FeedService(store: store, catalog: catalog, logger: logger, events: events, seed: seed)
    }

    /// Every provider with its kind, status and reason, for `crate plugins` and the API.
    public func pluginDescriptors() -> [PluginDescriptor] {
        sources.descriptors + decoders.descriptors + outputs.descriptors + encoders.descriptors
    }
}

/// How a runtime opens the library: the daemon and library commands write (and migrate); commands that only read
/// open it read-only, never migrate and never create it.
public enum LibraryAccess: Sendable {
    case readWrite, readOnly
}
