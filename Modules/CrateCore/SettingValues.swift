import CrateDomain
import Foundation

/// Reads `Settings` from the YAML config file and `CRATE_*` environment variables.
///
/// Keys are dotted (`output.plugin`); in YAML they nest (`output: {plugin: pulse}`), in the environment
/// they are upper-cased with `_` and the `CRATE_` prefix (`CRATE_OUTPUT_PLUGIN`). Lists are YAML sequences
/// or comma-separated strings.
///
/// This file holds what a value means (addresses, whole numbers, lists of names, the `http.*` checks) and needs
/// only Foundation and CrateDomain, so Fuzz/Config builds it on its own; SettingsLoader.swift reads the file and the
/// environment through swift-configuration and Yams.
public enum SettingsLoader {
    /// Crate's own keys; each plugin's block (`sources.applecatalog.*`, `outputs.pulse.*`, …) and each front end's
    /// (`mpd.*`, `mpris.*`) comes from its registration.
    public static let keys = [
        "data.directory", "sources.enabled", "decoders.order", "decoders.disabled", "output.plugin",
        "http.address", "http.allowed_hosts",
        "http.cors_origins", "http.token", "http.token_file", "http.max_body_bytes", "http.max_event_clients",
        "http.max_connections", "http.idle_timeout", "log.level",
        "import.mode", "import.delete_originals", "import.folder", "import.filename_charset", "artwork.repair_limit",
        "artwork.thumbnail_size",
        "player.replaygain", "player.replaygain_preamp", "player.replaygain_prevent_clipping",
    ]

    /// `output.plugin` is `CRATE_OUTPUT_PLUGIN`. Keys are ASCII: a byte map, not Foundation's string replacing
    /// (every key's origin asks for its name at each start, and that was a tenth of reading the settings).
    public static func environmentName(for key: String) -> String {
        var name = Array("CRATE_".utf8)
        name.reserveCapacity(6 + key.utf8.count)
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "."): name.append(UInt8(ascii: "_"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): name.append(byte - 32)
            default: name.append(byte)
            }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The parts of a list written as one string: `localfiles, urlstream`.
    static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    /// A list's items, trimmed, empty ones dropped.
    static func listItems(_ items: [String]) -> [String] {
        items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `values` when each is one of `known`.
    static func names(_ values: [String], key: String, known: [String]) throws -> [String] {
        for v in values where !known.contains(v) {
            throw ConfigError.invalidValue(key: key, value: v, accepted: known.joined(separator: ", "))
        }
        return values
    }

    static func integer(_ text: String, key: String, in range: ClosedRange<Int>) throws -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw ConfigError.invalidValue(key: key, value: text, accepted: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// `player.replaygain`, `player.replaygain_preamp` and `player.replaygain_prevent_clipping`.
    static func loudnessPolicy(_ string: (String) -> String?) throws -> LoudnessPolicy {
        var policy = LoudnessPolicy()
        if let v = string("player.replaygain") {
            guard let mode = LoudnessMode(rawValue: v.lowercased()) else {
                throw ConfigError.invalidValue(key: "player.replaygain", value: v,
                                               accepted: LoudnessMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            policy.mode = mode
        }
        if let v = string("player.replaygain_preamp") {
            let range = LoudnessPolicy.preampRange
            // "3", "-2.5", "+6 dB"
            guard let db = ReplayGainTags.parseGain(v), range.contains(db) else {
                throw ConfigError.invalidValue(key: "player.replaygain_preamp", value: v,
                                               accepted: "decibels from \(Int(range.lowerBound)) to \(Int(range.upperBound)), e.g. 0, -3 or 2.5")
            }
            policy.preamp = db
        }
        if let v = string("player.replaygain_prevent_clipping") {
            policy.preventClipping = try boolean(v, key: "player.replaygain_prevent_clipping")
        }
        return policy
    }

    static func boolean(_ text: String, key: String) throws -> Bool {
        switch text.lowercased() {
        case "true", "yes", "1", "on": true
        case "false", "no", "0", "off": false
        default: throw ConfigError.invalidValue(key: key, value: text, accepted: "true, false")
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

    /// A close spelling, else a key with the same last part (`storefront` → `sources.applecatalog.storefront`).
    static func nearestKey(to key: String, among known: [String]) -> String? {
        let last = key.split(separator: ".").last.map(String.init) ?? key
        return NearestName.nearest(to: key, among: known, maxEdits: max(2, key.count / 5))
            ?? known.first { $0.hasSuffix(".\(last)") }
    }

    /// "127.0.0.1:6610", "localhost:80", "[::1]:6610" or a bare port "6610".
    public static func parseAddress(_ text: String, key: String = "http.address", example: Int = Settings.defaultHTTPPort) throws -> (String, Int) {
        let invalid = ConfigError.invalidValue(key: key, value: text, accepted: "HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:\(example)")
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

    static func expandTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? FileManager.default.homeDirectoryForCurrentUser.path + path.dropFirst(1) : path
    }
}
