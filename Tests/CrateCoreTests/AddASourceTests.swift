import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Foundation
import Testing

/// The worked example of Docs/ARCHITECTURE.md ("Adding a source"): a source with its own settings block joins
/// Crate through its registration and one line in the plugin list, and nothing else changes.
struct RecordShopSource: CatalogSearchingSource {
    static let registration = PluginRegistration.source("recordshop", keys: [
        .init("shop_name", help: "the shop whose catalog is searched"),
        .init("api_key", secret: true, help: "the shop's key"),
    ]) { settings in RecordShopSource(shop: settings.string("shop_name"), block: settings) }

    let shop: String?
    let block: PluginSettings
    let name = "recordshop"
    let schemes = ["recordshop"]

    var status: PluginStatus {
        shop == nil ? .unavailable(reason: "set \(block.key("shop_name"))") : .available
    }

    func locate(_ ref: TrackRef) throws -> PlayableLocation {
        throw RegistryError.noSource(scheme: ref.source)
    }

    func searchCatalog(_ term: String, limit: Int) async throws -> [SearchGroupResult] {
        var albums = SearchGroupResult(group: .albums, total: 1, offset: 0)
        albums.catalog = [CatalogHit(source: "recordshop", id: "rs-1", title: "\(term.capitalized) Live", subtitle: shop)]
        return [albums]
    }
}

@Suite struct AddASourceTests {
    /// The one line: the shipped list plus the new registration.
    let plugins = CratePlugins.list.adding(RecordShopSource.registration)

    func runtime(_ yaml: String) async throws -> CrateRuntime {
        let dir = try Fixture.temporaryDirectory("crate-add-source")
        let config = dir.appendingPathComponent("config.yaml")
        try Data(yaml.utf8).write(to: config)
        return try await CrateRuntime.start(plugins: plugins, configPath: config.path,
                                            environment: ["HOME": dir.path, "CRATE_DATA_DIRECTORY": dir.appendingPathComponent("data").path])
    }

    @Test func aSourceAddedInOneLineIsListedConfiguredAndSearched() async throws {
        let runtime = try await runtime("""
            sources:
              enabled: [localfiles, recordshop]
              recordshop:
                shop_name: Rough Trade
                api_key: not-for-printing
            """)
        // What `crate plugins` lists (it prints these descriptors).
        let listed = try #require(runtime.pluginDescriptors().first { $0.name == "recordshop" })
        #expect(listed.kind == .source && listed.available && listed.handles == ["recordshop:"])
        // Its block was read from the config file like any built-in plugin's.
        #expect(runtime.settings.plugin("sources.recordshop").string("shop_name") == "Rough Trade")
        // External search reaches it with no change to the search service.
        let found = try await runtime.search.search("dub", scope: .external)
        let hit = try #require(found.group(.albums)?.catalog?.first)
        #expect(hit == CatalogHit(source: "recordshop", id: "rs-1", title: "Dub Live", subtitle: "Rough Trade"))
    }

    @Test func itsOwnSettingsProblemsShowInItsStatus() async throws {
        let runtime = try await runtime("sources:\n  enabled: [localfiles, recordshop]\n")
        let listed = try #require(runtime.pluginDescriptors().first { $0.name == "recordshop" })
        #expect(!listed.available && listed.reason == "set sources.recordshop.shop_name")
        // A name the list does not know is still refused, naming the known ones.
        let dir = try Fixture.temporaryDirectory("crate-add-source")
        await #expect(throws: ConfigError.self) {
            try await CrateRuntime.start(plugins: CratePlugins.list, environment: ["HOME": dir.path, "CRATE_SOURCES_ENABLED": "recordshop"])
        }
    }
}
