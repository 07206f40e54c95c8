import ArgumentParser
import CrateCore
import CrateFeeds
import Foundation
import CrateDomain

struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show every setting with its value and where it comes from (default, file, env or database).")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Print only this key's value, e.g. data.directory or import.mode.") var get: String?
    @Flag(help: "Print JSON: each key with its value and origin.") var json = false

    struct Row: Encodable {
        var key: String
        var value: String
        var origin: String
    }

    func run() async throws {
        let runtime = try await options.runtime()
        let rows = Self.rows(runtime)
        if let get {
            // A former name (`catalog.base_url`) answers with its current key's value.
            let key = runtime.plugins.settingsBlocks.lazy.flatMap { b in b.keys.map { (b.block + "." + $0.name, $0.formerNames) } }
                .first { $0.1.contains(get) }?.0 ?? get
            guard let value = rows.first(where: { $0.key == key })?.value else {
                let hint = NearestName.nearest(to: get, among: rows.map(\.key), maxEdits: 3).map { " Did you mean '\($0)'?" } ?? ""
                throw CLIError("unknown key '\(get)'.\(hint) `crate config` lists every key.")
            }
            return print(value)
        }
        if json { return try printJSON(Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0) })) }
        for row in rows { print("\(pad(row.key, 42))\(pad(row.value, 40)) \(row.origin)") }
    }

    /// Every key: Crate's own, the ones kept in the database, then each plugin's and front end's block as it declares it
    /// (with its default). Secrets show only whether they are set.
    static func rows(_ runtime: CrateRuntime) -> [Row] {
        let s = runtime.settings
        func row(_ key: String, _ value: String, origin: SettingOrigin? = nil) -> Row {
            Row(key: key, value: value, origin: (origin ?? s.origin(key)).rawValue)
        }
        let storedMode = runtime.storedSetting("import.mode").flatMap(ImportMode.init(rawValue:))
        let storedDial = runtime.storedSetting(FeedService.dialSetting).flatMap(CrateDial.init(parsing:))
        var rows = [
            Row(key: "config.file", value: s.configFile?.path ?? "(none)",
                origin: s.configFile == nil ? SettingOrigin.default.rawValue : SettingOrigin.file.rawValue),
            row("data.directory", s.dataDirectory.path),
            row("database", s.databaseURL.path, origin: s.origin("data.directory")),
            row("sources.enabled", s.enabledSources.joined(separator: ",")),
            row("decoders.order", s.decoderOrder.joined(separator: ",")),
            row("decoders.disabled", s.disabledDecoders.joined(separator: ",")),
            row("output.plugin", s.output),
            row("http.address", "\(s.httpHost):\(s.httpPort)"),
            row("http.allowed_hosts", s.http.allowedHosts.joined(separator: ",")),
            row("http.cors_origins", s.http.corsOrigins.joined(separator: ",")),
            row("http.token", s.http.token == nil ? "" : "(set)"),
            row("http.token_file", s.http.tokenFile ?? ""),
            row("http.max_body_bytes", "\(s.http.maxBodyBytes)"),
            row("http.max_event_clients", "\(s.http.maxEventClients)"),
            row("http.max_connections", "\(s.http.maxConnections)"),
            row("http.idle_timeout", "\(s.http.idleTimeoutSeconds)"),
            row("log.level", s.logLevel),
            // Config wins; else the mode the first import stored; else copy.
            row("import.mode", (s.importMode ?? storedMode ?? .default).rawValue,
                origin: s.importMode == nil && storedMode != nil ? .database : nil),
            row("import.delete_originals", "\(s.deleteOriginals)"),
            row("import.folder", s.importFolder.path),
            row("artwork.repair_limit", "\(s.artworkRepairLimit)"),
            row("artwork.thumbnail_size", "\(s.thumbnailSize)"),
            row("player.replaygain", s.loudness.mode.rawValue),
            row("player.replaygain_preamp", String(format: "%g", s.loudness.preamp)),
            row("player.replaygain_prevent_clipping", "\(s.loudness.preventClipping)"),
            row(FeedService.dialSetting, (storedDial ?? .default).rawValue, origin: storedDial == nil ? .default : .database),
        ]
        for declared in runtime.plugins.settingsBlocks {
            let block = s.plugin(declared.block)
            for key in declared.keys {
                let value = block.string(key.name)
                let shown = key.secret ? (value == nil ? "" : "(set)")
                    : value ?? key.defaultValue?.replacingOccurrences(of: "<data.directory>", with: s.dataDirectory.path) ?? ""
                rows.append(row(block.key(key.name), shown))
            }
        }
        return rows
    }
}
