import Configuration
public import CrateDomain
public import Foundation
import SystemPackage
import Yams

/// Reads `Settings` from the YAML config file and `CRATE_*` environment variables.
///
/// Keys are dotted (`output.plugin`); in YAML they nest (`output: {plugin: pulse}`), in the environment
/// they are upper-cased with `_` and the `CRATE_` prefix (`CRATE_OUTPUT_PLUGIN`). Lists are YAML sequences
/// or comma-separated strings.
public enum SettingsLoader {
    /// Crate's own keys; each plugin's block (`sources.applecatalog.*`, `outputs.pulse.*`, …) comes from its registration.
    public static let keys = [
        "data.directory", "sources.enabled", "decoders.order", "decoders.disabled", "output.plugin",
        "http.address", "http.allowed_hosts",
        "http.cors_origins", "http.token", "http.token_file", "http.max_body_bytes", "http.max_event_clients",
        "http.max_connections", "http.idle_timeout", "log.level",
        "import.mode", "import.delete_originals", "import.folder", "artwork.repair_limit", "artwork.thumbnail_size",
    ]

    public static func environmentName(for key: String) -> String {
        "CRATE_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

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
        func string(_ key: String) -> String? {
            reader.string(forKey: ConfigKey(key)).flatMap { $0.isEmpty ? nil : $0 }
        }
        /// The environment wins over the file (`crateVariables` feeds the first provider).
        func origin(_ key: String) -> SettingOrigin? {
            if environment[environmentName(for: key)].map({ !$0.isEmpty }) == true { return .env }
            return string(key) != nil || reader.stringArray(forKey: ConfigKey(key)) != nil ? .file : nil
        }
        func list(_ key: String) -> [String]? {
            let items = reader.stringArray(forKey: ConfigKey(key)) ?? string(key).map { $0.split(separator: ",").map(String.init) }
            return items?.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        func names(_ key: String, known: [String]) throws -> [String]? {
            guard let values = list(key) else { return nil }
            for v in values where !known.contains(v) {
                throw ConfigError.invalidValue(key: key, value: v, accepted: known.joined(separator: ", "))
            }
            return values
        }

        let dataDirectory = string("data.directory").map { URL(fileURLWithPath: expandTilde($0)) }
            ?? defaultDataDirectory(environment: environment)
        var s = Settings(dataDirectory: dataDirectory)
        s.configFile = exists ? file : nil
        if let v = try names("sources.enabled", known: knownSources) { s.enabledSources = v }
        if let v = try names("decoders.order", known: knownDecoders) { s.decoderOrder = v }
        if let v = try names("decoders.disabled", known: knownDecoders) { s.disabledDecoders = v }
        if let v = string("output.plugin") {
            let accepted = ["auto"] + knownOutputs
            guard accepted.contains(v) else {
                throw ConfigError.invalidValue(key: "output.plugin", value: v, accepted: accepted.joined(separator: ", "))
            }
            s.output = v
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
        if let v = string("import.delete_originals") {
            switch v.lowercased() {
            case "true", "yes", "1", "on": s.deleteOriginals = true
            case "false", "no", "0", "off": s.deleteOriginals = false
            default: throw ConfigError.invalidValue(key: "import.delete_originals", value: v, accepted: "true, false")
            }
        }
        if let v = string("import.folder") { s.importFolder = URL(fileURLWithPath: expandTilde(v), isDirectory: true) }
        s.artworkRepairLimit = try integer("artwork.repair_limit", in: 0...100_000) ?? s.artworkRepairLimit
        s.thumbnailSize = try integer("artwork.thumbnail_size", in: 16...2048) ?? s.thumbnailSize
        (s.pluginValues, s.warnings) = pluginBlocks(plugins, string: string, list: list)
        s.http = try httpSettings(string, list: list, integer: integer)
        for key in keys { s.origins[key] = origin(key) }
        for registration in plugins.registrations {
            for key in registration.keys {
                let full = "\(registration.block).\(key.name)"
                s.origins[full] = origin(full) ?? key.formerNames.lazy.compactMap(origin).first
            }
        }
        if exists { s.warnings += unknownKeys(in: file, plugins: plugins) }
        return s

        func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = string(key) else { return nil }
            guard let n = Int(text), range.contains(n) else {
                throw ConfigError.invalidValue(key: key, value: text, accepted: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
    }

    static func httpSettings(_ string: (String) -> String?, list: (String) -> [String]?,
                             integer: (String, ClosedRange<Int>) throws -> Int?) throws -> HTTPSettings {
        var h = HTTPSettings()
        if let hosts = list("http.allowed_hosts") {
            for host in hosts where host.contains("/") || host.contains(" ") {
                throw ConfigError.invalidValue(key: "http.allowed_hosts", value: host, accepted: "host names, optionally with :PORT, e.g. music.home, 192.168.1.5:6610")
            }
            h.allowedHosts = hosts.map { $0.lowercased() }
        }
        if let origins = list("http.cors_origins") {
            for origin in origins {
                guard let url = URL(string: origin), url.scheme == "http" || url.scheme == "https", url.host != nil,
                      url.path.isEmpty || url.path == "/" else {
                    throw ConfigError.invalidValue(key: "http.cors_origins", value: origin, accepted: "origins such as https://app.example or http://localhost:5173")
                }
            }
            h.corsOrigins = origins.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
        }
        if let file = string("http.token_file").map(expandTilde) {
            h.token = try readSecret(key: "http.token_file", path: file)
            h.tokenFile = file
        }
        if let token = string("http.token") { h.token = token }
        if let token = h.token {
            // The value is never echoed: only its length is a problem worth naming.
            guard token.count >= HTTPSettings.minimumTokenLength, !token.contains(where: \.isWhitespace) else {
                throw ConfigError.invalidValue(key: h.tokenFile == nil ? "http.token" : "http.token_file", value: "(hidden)",
                                               accepted: "at least \(HTTPSettings.minimumTokenLength) characters without spaces")
            }
        }
        h.maxBodyBytes = try integer("http.max_body_bytes", 1024...(256 << 20)) ?? h.maxBodyBytes
        h.maxEventClients = try integer("http.max_event_clients", 1...10_000) ?? h.maxEventClients
        h.maxConnections = try integer("http.max_connections", 8...100_000) ?? h.maxConnections
        h.idleTimeoutSeconds = try integer("http.idle_timeout", 1...3600) ?? h.idleTimeoutSeconds
        return h
    }

    /// Reads a secret from a file only its owner may read (as ssh does with keys); trailing newlines dropped.
    static func readSecret(key: String, path: String) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ConfigError.secretFileUnreadable(key: key, path: path, reason: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigError.secretFileUnreadable(key: key, path: path, reason: "not a regular file")
        }
        let mode = Int(st.st_mode & 0o777)
        if mode & 0o077 != 0 { throw ConfigError.secretFileTooOpen(key: key, path: path, mode: String(mode, radix: 8)) }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError.secretFileUnreadable(key: key, path: path, reason: "not readable UTF-8 text")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw ConfigError.secretFileUnreadable(key: key, path: path, reason: "the file is empty") }
        return secret
    }

    /// Each plugin's block, read under its new names first and then its former ones (which earn a warning).
    static func pluginBlocks(_ plugins: PluginList, string: (String) -> String?, list: (String) -> [String]?)
        -> (values: [String: [String: String]], warnings: [String]) {
        var values: [String: [String: String]] = [:]
        var warnings: [String] = []
        for registration in plugins.registrations {
            for key in registration.keys {
                let full = "\(registration.block).\(key.name)"
                if let v = string(full) ?? list(full)?.joined(separator: ",") {
                    values[registration.block, default: [:]][key.name] = v
                    continue
                }
                for former in key.formerNames {
                    guard let v = string(former) else { continue }
                    values[registration.block, default: [:]][key.name] = v
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
        keys + plugins.registrations.flatMap { registration in registration.keys.map { "\(registration.block).\($0.name)" } }
    }

    /// A warning for each key of the YAML file that Crate does not read (a typo would otherwise be ignored in
    /// silence), naming the nearest known key.
    static func unknownKeys(in file: URL, plugins: PluginList) -> [String] {
        // The provider has read the file already: a file it accepted parses here too.
        guard let text = try? String(contentsOf: file, encoding: .utf8), let root = try? Yams.compose(yaml: text) else { return [] }
        let current = currentKeys(plugins)
        let known = Set(current + plugins.registrations.flatMap { $0.keys.flatMap(\.formerNames) })
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

    /// A close spelling, else a key with the same last part (`storefront` → `sources.applecatalog.storefront`).
    static func nearestKey(to key: String, among known: [String]) -> String? {
        let last = key.split(separator: ".").last.map(String.init) ?? key
        return NearestName.nearest(to: key, among: known, maxEdits: max(2, key.count / 5))
            ?? known.first { $0.hasSuffix(".\(last)") }
    }

    /// "127.0.0.1:6610", "localhost:80", "[::1]:6610" or a bare port "6610".
    public static func parseAddress(_ text: String) throws -> (String, Int) {
        let invalid = ConfigError.invalidValue(key: "http.address", value: text, accepted: "HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:\(Settings.defaultHTTPPort)")
        if let port = Int(text) {
            guard (1...65535).contains(port) else { throw invalid }
            return ("127.0.0.1", port)
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { throw invalid }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw invalid }
        return (host, port)
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

    static func expandTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? FileManager.default.homeDirectoryForCurrentUser.path + path.dropFirst(1) : path
    }
}
