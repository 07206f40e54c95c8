import Configuration
public import CrateDomain
public import Foundation
import SystemPackage
import Yams

/// Reading the config file and the environment; what each value means is in SettingValues.swift.
extension SettingsLoader {
    /// The config file: `explicit` (from `--config`), else `$CRATE_CONFIG`, else the XDG location.
    /// Only an explicitly named file must exist.
    public static func configFile(explicit: String?, environment: [String: String]) -> (url: URL, required: Bool) {
        if let explicit { return (URL(fileURLWithPath: expandTilde(explicit)), true) }
        if let env = environment["CRATE_CONFIG"], !env.isEmpty { return (URL(fileURLWithPath: expandTilde(env)), true) }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (home(environment) + "/.config")
        return (URL(fileURLWithPath: base).appendingPathComponent("crate/config.yaml"), false)
    }

    public static func defaultDataDirectory(environment: [String: String]) -> URL {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (home(environment) + "/.local/share")
        return URL(fileURLWithPath: base).appendingPathComponent("crate")
    }

    public static func load(configPath: String? = nil,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            plugins: PluginList) async throws -> Settings {
        let knownSources = plugins.names(.source), knownDecoders = plugins.names(.decoder), knownOutputs = plugins.names(.output)
        let (file, required) = configFile(explicit: configPath, environment: environment)
        let exists = FileManager.default.fileExists(atPath: file.path)
        if required && !exists { throw ConfigError.missingFile(path: file.path) }

        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: crateVariables(environment))]
        if exists {
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file.path)))
            } catch {
                throw ConfigError.unreadableFile(path: file.path, reason: String(describing: error))
            }
        }
        let reader = ConfigReader(providers: providers)
        // Each key is asked for its value and then its origin, some as a string and as a list: every answer is kept,
        // since a ConfigReader lookup (the key decoded, each provider asked) was most of a short command's settings.
        var strings: [String: String?] = [:]
        var arrays: [String: [String]?] = [:]
        func string(_ key: String) -> String? {
            if let known = strings[key] { return known }
            let value = reader.string(forKey: ConfigKey(key)).flatMap { $0.isEmpty ? nil : $0 }
            strings[key] = .some(value)
            return value
        }
        func stringArray(_ key: String) -> [String]? {
            if let known = arrays[key] { return known }
            let value = reader.stringArray(forKey: ConfigKey(key))
            arrays[key] = .some(value)
            return value
        }
        /// The environment wins over the file (`crateVariables` feeds the first provider).
        func origin(_ key: String) -> SettingOrigin? {
            if environment[environmentName(for: key)].map({ !$0.isEmpty }) == true { return .env }
            return string(key) != nil || stringArray(key) != nil ? .file : nil
        }
        func list(_ key: String) -> [String]? {
            let items = stringArray(key) ?? string(key).map(commaSeparated)
            return items.map(listItems)
        }
        func names(_ key: String, known: [String]) throws -> [String]? {
            guard let values = list(key) else { return nil }
            return try Self.names(values, key: key, known: known)
        }

        let dataDirectory = string("data.directory").map { URL(fileURLWithPath: expandTilde($0)) }
            ?? defaultDataDirectory(environment: environment)
        var s = Settings(dataDirectory: dataDirectory)
        s.configFile = exists ? file : nil
        if let v = try names("sources.enabled", known: knownSources) { s.enabledSources = v }
        if let v = try names("decoders.order", known: knownDecoders) { s.decoderOrder = v }
        if let v = try names("decoders.disabled", known: knownDecoders) { s.disabledDecoders = v }
        // One output or several at once: `pulse`, `[pulse, stream]`, `pulse,stream`.
        if let values = list("output.plugin"), !values.isEmpty {
            let accepted = ["auto"] + knownOutputs
            for v in values where !accepted.contains(v) {
                throw ConfigError.invalidValue(key: "output.plugin", value: v, accepted: accepted.joined(separator: ", "))
            }
            s.output = values.joined(separator: ",")
        }
        if let v = string("http.address") { (s.httpHost, s.httpPort) = try parseAddress(v) }
        if let v = string("log.level") {
            guard Settings.logLevels.contains(v) else {
                throw ConfigError.invalidValue(key: "log.level", value: v, accepted: Settings.logLevels.joined(separator: ", "))
            }
            s.logLevel = v
        }
        if let v = string("import.mode") {
            guard let mode = ImportMode(rawValue: v) else {
                throw ConfigError.invalidValue(key: "import.mode", value: v,
                                               accepted: ImportMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            s.importMode = mode
        }
        if let v = string("import.delete_originals") { s.deleteOriginals = try boolean(v, key: "import.delete_originals") }
        if let v = string("import.folder") { s.importFolder = URL(fileURLWithPath: expandTilde(v), isDirectory: true) }
        if let v = string("import.filename_charset") {
            guard let charset = FileNameCharset(rawValue: v.lowercased()) else {
                throw ConfigError.invalidValue(key: "import.filename_charset", value: v,
                                               accepted: FileNameCharset.allCases.map(\.rawValue).joined(separator: ", "))
            }
            s.fileNameCharset = charset
        }
        // How this process shows names that are not UTF-8 (one setting for every message and listing).
        RawFileName.displayCharset = s.fileNameCharset
        s.artworkRepairLimit = try integer("artwork.repair_limit", in: 0...100_000) ?? s.artworkRepairLimit
        s.thumbnailSize = try integer("artwork.thumbnail_size", in: 16...2048) ?? s.thumbnailSize
        (s.pluginValues, s.warnings) = pluginBlocks(plugins, string: string, list: list)
        s.http = try httpSettings(string, list: list, integer: integer)
        s.loudness = try loudnessPolicy(string)
        for key in keys { s.origins[key] = origin(key) }
        for block in plugins.settingsBlocks {
            for key in block.keys {
                let full = "\(block.block).\(key.name)"
                s.origins[full] = origin(full) ?? key.formerNames.lazy.compactMap(origin).first
            }
        }
        if exists { s.warnings += unknownKeys(in: file, plugins: plugins) }
        return s

        func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = string(key) else { return nil }
            return try Self.integer(text, key: key, in: range)
        }
    }

    /// Each plugin's block, read under its new names first and then its former ones (which earn a warning).
    static func pluginBlocks(_ plugins: PluginList, string: (String) -> String?, list: (String) -> [String]?)
        -> (values: [String: [String: String]], warnings: [String]) {
        var values: [String: [String: String]] = [:]
        var warnings: [String] = []
        for block in plugins.settingsBlocks {
            for key in block.keys {
                let full = "\(block.block).\(key.name)"
                if let v = string(full) ?? list(full)?.joined(separator: ",") {
                    values[block.block, default: [:]][key.name] = v
                    continue
                }
                for former in key.formerNames {
                    guard let v = string(former) else { continue }
                    values[block.block, default: [:]][key.name] = v
                    warnings.append("config key '\(former)' (env \(environmentName(for: former))) is deprecated: "
                        + "use '\(full)' (env \(environmentName(for: full)))")
                    break
                }
            }
        }
        return (values, warnings)
    }

    /// Every key Crate reads today: its own and each plugin's block (former names not included).
    public static func currentKeys(_ plugins: PluginList) -> [String] {
        keys + plugins.settingsBlocks.flatMap { block in block.keys.map { "\(block.block).\($0.name)" } }
    }

    /// A warning for each key of the YAML file that Crate does not read (a typo would otherwise be ignored in
    /// silence), naming the nearest known key.
    static func unknownKeys(in file: URL, plugins: PluginList) -> [String] {
        // The provider has read the file already: a file it accepted parses here too.
        guard let text = try? String(contentsOf: file, encoding: .utf8), let root = try? Yams.compose(yaml: text) else { return [] }
        let current = currentKeys(plugins)
        let known = Set(current + plugins.settingsBlocks.flatMap { $0.keys.flatMap(\.formerNames) })
        var found: [String] = []
        func walk(_ node: Node, _ prefix: String) {
            guard let mapping = node.mapping else {
                if !prefix.isEmpty, !known.contains(prefix) { found.append(prefix) }
                return
            }
            for (name, value) in mapping {
                guard let name = name.string else { continue }
                walk(value, prefix.isEmpty ? name : "\(prefix).\(name)")
            }
        }
        walk(root, "")
        return found.map { key in
            "config file \(file.path): unknown key '\(key)' is ignored"
                + (nearestKey(to: key, among: current).map { "; did you mean '\($0)'?" } ?? "")
        }
    }

    /// `CRATE_OUTPUT_PLUGIN` becomes `OUTPUT_PLUGIN`, which the provider maps to `output.plugin`.
    private static func crateVariables(_ environment: [String: String]) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in environment where k.hasPrefix("CRATE_") && k != "CRATE_CONFIG" {
            out[String(k.dropFirst("CRATE_".count))] = v
        }
        return out
    }

    private static func home(_ environment: [String: String]) -> String {
        environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
    }
}
