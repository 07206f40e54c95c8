import AppleCatalogREST
import CrateAudio
import CrateDomain
import CrateStorage
import Foundation
import Logging

/// The composition root: settings -> registries -> store. Apps build one and use its services.
public struct CrateRuntime: Sendable {
    public let settings: Settings
    public let sources: SourceRegistry
    public let decoders: DecoderRegistry
    public let outputs: OutputRegistry
    public let store: LibraryStore
    public let library: LibraryService
    /// The Apple Music catalog: one client and cache for the runtime's lifetime.
    public let catalog: CatalogService
    public let logger: Logger

    /// Loads settings (see `SettingsLoader`) and builds everything from them.
    public static func start(configPath: String? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment,
                             overrides: (inout Settings) throws -> Void = { _ in }) async throws -> CrateRuntime {
        var settings = try await SettingsLoader.load(
            configPath: configPath, environment: environment, knownSources: PluginCatalog.sourceNames,
            knownDecoders: PluginCatalog.decoderNames, knownOutputs: PluginCatalog.outputNames)
        try overrides(&settings)
        CrateLogging.bootstrap(level: settings.logLevel)
        return try CrateRuntime(settings: settings)
    }

    public init(settings: Settings, logger: Logger = Logger(label: "crate")) throws {
        self.settings = settings
        self.logger = logger
        let enabled = PluginCatalog.sources(settings).filter { settings.enabledSources.contains($0.name) }
        sources = try SourceRegistry(enabled)
        catalog = CatalogService(sources: sources, settings: settings)
        decoders = try DecoderRegistry(PluginCatalog.decoders(), order: settings.decoderOrder,
                                       disabled: settings.disabledDecoders)
        outputs = try OutputRegistry(PluginCatalog.outputs(settings), autoOrder: PluginCatalog.autoOutputOrder)
        store = try LibraryStore(url: settings.databaseURL)
        library = LibraryService(settings: settings, store: store, sources: sources, decoders: decoders, logger: logger)
        for p in decoders.plugins {
            if case .unavailable(let reason) = p.status { logger.warning("decoder \(p.name) unavailable: \(reason)") }
        }
        for p in sources.plugins {
            guard case .unavailable(let reason) = p.status else { continue }
            // A catalog nobody set up is normal, not worth a warning on every command; `crate plugins` says why.
            let unset = p is AppleCatalogSource && !settings.catalog.hasAnyCredential
            logger.log(level: unset ? .debug : .warning, "source \(p.name) unavailable: \(reason)")
        }
    }

    /// Search over the library's index and the catalogs of sources that have one.
    public var search: SearchService { SearchService(store: store, sources: sources) }
    public var lyrics: LyricsService { LyricsService(store: store) }
    public var playlistFiles: PlaylistFiles { PlaylistFiles(store: store) }

    /// A feed service (the wall, genre feeds, the dial, likes): the daemon keeps one for its lifetime.
    public func feeds(events: EventBus? = nil, seed: UInt64? = nil) -> FeedService {
        FeedService(store: store, catalog: catalog, logger: logger, events: events, seed: seed)
    }

    /// Every provider with its kind, status and reason, for `crate plugins` and the API.
    public func pluginDescriptors() -> [PluginDescriptor] {
        sources.descriptors + decoders.descriptors + outputs.descriptors
    }

    /// Makes the output for `choice` (default: the configured one), logging which and why.
    public func makeOutput(_ choice: String? = nil) throws -> any AudioOutput {
        let (plugin, why) = try outputs.resolve(choice ?? settings.output)
        logger.info("\(why)")
        return try plugin.makeOutput()
    }
}
