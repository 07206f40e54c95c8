public import CrateDomain
public import CrateStorage
import Foundation
import Logging

/// The library's operations for both front ends: imports and rescans, missing files, edits, deletion,
/// artwork and maintenance. Synchronous and thread-safe; the daemon runs long work off its request threads.
public struct LibraryService: Sendable {
    public let settings: Settings
    public let store: LibraryStore
    let sources: SourceRegistry
    let decoders: DecoderRegistry
    let logger: Logger
    /// Edits, relinks and deletions say so here (imports and rescans through `LibraryJobs`).
    let events: EventBus?
    let managed: ManagedLibrary
    let artwork: ArtworkStore
    /// Copies in flight, for cleaning up after an import that was killed.
    var journal: ImportJournal { ImportJournal(url: settings.dataDirectory.appendingPathComponent("import-journal")) }

    init(settings: Settings, store: LibraryStore, sources: SourceRegistry, decoders: DecoderRegistry, logger: Logger,
         events: EventBus? = nil) {
        self.settings = settings
        self.events = events
        self.store = store
        self.sources = sources
        self.decoders = decoders
        self.logger = logger
        managed = ManagedLibrary(root: settings.libraryFolder)
        artwork = ArtworkStore(folder: settings.artworkFolder)
    }

    static let modeKey = "import.mode"

    /// The import mode in force: `requested` (a flag) if given, else config, else the one stored at the
    /// first import, else copy. A flag or the first import stores its choice, so later imports keep it.
    public func importMode(requested: ImportMode? = nil) throws -> ImportMode {
        let stored = try store.setting(Self.modeKey).flatMap(ImportMode.init(rawValue:))
        let mode = requested ?? settings.importMode ?? stored ?? .default
        if requested != nil || stored == nil { try store.setSetting(Self.modeKey, mode.rawValue) }
        return mode
    }

    /// The folders music lives in: the library folder copies are kept in, and those imported by reference.
    public func musicFolders() throws -> [String] {
        [settings.libraryFolder.path] + (try store.libraryRoots())
    }

    /// The mode without storing anything, for status displays.
    public func currentImportMode() -> ImportMode {
        settings.importMode ?? (try? store.setting(Self.modeKey)).flatMap { $0.flatMap(ImportMode.init(rawValue:)) } ?? .default
    }

    var scanner: any ListingSource {
        get throws {
            guard let scanner = try sources.plugin(forScheme: TrackRef.fileScheme) as? any ListingSource else {
                throw RegistryError.noSource(scheme: TrackRef.fileScheme)
            }
            return scanner
        }
    }
}
