import CrateDomain
import Foundation

/// Fuzz target: what Crate makes of config values (Modules/CrateCore/SettingValues.swift; the YAML syntax is Yams'
/// and libyaml's). The input is `key=value` entries, one a line (or separated by NUL bytes when there is one, so a
/// value may hold a newline, as a YAML block scalar can). Every value goes through the address parser, the
/// whole-number and boolean readers, the list splitting and the name check; every key through the "did you mean"
/// search and the environment name; the entries together through `httpSettings` and `loudnessPolicy` as `load` hands
/// them over.
/// Beyond "no crash": a value is accepted or refused with a ConfigError, never anything else; an accepted port
/// is 1...65535 and an accepted number lies in its range; an address written back as `crate` connects to it reads
/// the same; list items are trimmed, non-empty and comma-free; accepted names are known ones.
private let settings = Settings(dataDirectory: URL(fileURLWithPath: "/fuzz/data", isDirectory: true))
private let knownNames = ["localfiles", "applecatalog", "urlstream", "opus", "vorbis", "mp3", "flac", "wav", "pulse",
                          "wavfile", "null"]
private let knownKeys = SettingsLoader.keys + ["sources.applecatalog.storefront", "sources.applecatalog.developer_token",
                                               "outputs.pulse.server", "outputs.wavfile.path", "sources.localfiles.folders"]
private let ranges = [0...100_000, 1024...(256 << 20)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let separator: UInt8 = bytes.contains(0) ? 0 : UInt8(ascii: "\n")
    var entries: [String: String] = [:]
    for part in bytes.split(separator: separator, omittingEmptySubsequences: false) {
        let line = String(decoding: part, as: UTF8.self)
        let key: String, value: String
        if let eq = line.firstIndex(of: "=") {
            (key, value) = (String(line[..<eq]), String(line[line.index(after: eq)...]))
        } else {
            (key, value) = ("", line)
        }
        checkValue(value, key: key)
        checkKey(key)
        entries[key] = value
    }
    checkHTTP(entries)
    checkLoudness(entries)
    return 0
}

/// `player.replaygain*` as `load` reads them: a mode among the four, a pre-amp in its range, a boolean.
private func checkLoudness(_ entries: [String: String]) {
    func string(_ key: String) -> String? { entries[key].flatMap { $0.isEmpty ? nil : $0 } }
    guard let policy = refusedOrAccepted("player.", describe: true, { try SettingsLoader.loudnessPolicy(string) }) else { return }
    precondition(LoudnessPolicy.preampRange.contains(policy.preamp), "pre-amp \(policy.preamp) accepted")
    if string("player.replaygain") == nil { precondition(policy.mode == .auto, "a mode from nowhere") }
    if string("player.replaygain_preamp") == nil { precondition(policy.preamp == 0, "a pre-amp from nowhere") }
}

/// `body` returns, or throws a ConfigError.invalidValue naming `key` (or a key under `key` when it ends in a dot).
/// `describe` also writes the message out (the environment name in it included); not for every value, as it is slow.
private func refusedOrAccepted<T>(_ key: String, describe: Bool = false, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch let error as ConfigError {
        guard case let .invalidValue(named, _, accepted) = error else { preconditionFailure("not an invalid value: \(error)") }
        precondition(named == key || (key.hasSuffix(".") && named.hasPrefix(key)), "\(named) named instead of \(key)")
        precondition(!accepted.isEmpty, "nothing said to be accepted")
        if describe {
            let text = error.description
            precondition(text.contains("'\(named)'"), "a message not naming its key: \(text)")
        }
        return nil
    } catch {
        preconditionFailure("not a ConfigError: \(error)")
    }
}

private func checkValue(_ value: String, key: String) {
    if let (host, port) = refusedOrAccepted("http.address", describe: true, { try SettingsLoader.parseAddress(value) }) {
        precondition((1...65535).contains(port), "port \(port) accepted")
        precondition(!host.isEmpty, "an empty host accepted")
        if Int(value) != nil { precondition(host == "127.0.0.1", "a bare port gave host \(host)") }
        var s = settings
        (s.httpHost, s.httpPort) = (host, port)
        do {
            try s.checkHTTPExposure()
        } catch {
            precondition(!HTTPSettings.isLoopback(host), "loopback host \(host) refused without a token")
        }
        // `crate` connects to httpClientAddress; it must name the same host and port (a host written as `[name]`
        // without a colon comes back bare, and the wildcard hosts become 127.0.0.1: both meant).
        let client = s.httpClientAddress
        if !(host.hasPrefix("[") && host.hasSuffix("]")) && !HTTPSettings.isWildcard(host) {
            let again = refusedOrAccepted("http.address", { try SettingsLoader.parseAddress(client) })
            precondition(again?.0 == host && again?.1 == port, "\(value) -> \(client) -> \(String(describing: again))")
        }
    }
    if HTTPSettings.isLoopback(value) {
        let lowered = value.lowercased()
        precondition(lowered == "localhost" || lowered.contains(":") || lowered.hasPrefix("127."), "loopback \(value)")
    }
    _ = HTTPSettings.isWildcard(value)

    for range in ranges {
        if let n = refusedOrAccepted(key, { try SettingsLoader.integer(value, key: key, in: range) }) {
            precondition(range.contains(n), "\(n) accepted outside \(range)")
        }
    }
    if let b = refusedOrAccepted(key, { try SettingsLoader.boolean(value, key: key) }) {
        let lowered = value.lowercased()
        precondition(b == ["true", "yes", "1", "on"].contains(lowered), "\(value) read as \(b)")
    }

    let items = SettingsLoader.listItems(SettingsLoader.commaSeparated(value))
    for item in items {
        precondition(!item.isEmpty, "an empty list item")
        precondition(!item.contains(Character(",")), "a comma left in item \(item)")
        let scalars = item.unicodeScalars
        precondition(!CharacterSet.whitespaces.contains(scalars.first!) && !CharacterSet.whitespaces.contains(scalars.last!),
                     "an untrimmed item \(item)")
    }
    if let names = refusedOrAccepted(key, { try SettingsLoader.names(items, key: key, known: knownNames) }) {
        precondition(names.allSatisfy(knownNames.contains), "an unknown name accepted")
    }

    let expanded = SettingsLoader.expandTilde(value)
    if !value.hasPrefix("~/") { precondition(expanded == value, "\(value) expanded to \(expanded)") }
}

private func checkKey(_ key: String) {
    let near = SettingsLoader.nearestKey(to: key, among: knownKeys)
    if let near { precondition(knownKeys.contains(near), "suggested \(near), not a key") }
    if knownKeys.contains(key) { precondition(near == key, "\(key) not its own nearest") }
    let env = SettingsLoader.environmentName(for: key)
    precondition(env.utf8.starts(with: "CRATE_".utf8) && !env.contains(Character(".")), "environment name \(env)")
}

/// `http.*` as `load` reads it (`http.token_file` left out: the fuzzer's input is not the file system).
private func checkHTTP(_ entries: [String: String]) {
    func string(_ key: String) -> String? {
        key == "http.token_file" ? nil : entries[key].flatMap { $0.isEmpty ? nil : $0 }
    }
    func list(_ key: String) -> [String]? { string(key).map(SettingsLoader.commaSeparated).map(SettingsLoader.listItems) }
    func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = string(key) else { return nil }
        return try SettingsLoader.integer(text, key: key, in: range)
    }
    guard let http = refusedOrAccepted("http.", describe: true, { try SettingsLoader.httpSettings(string, list: list, integer: integer) })
    else { return }
    for host in http.allowedHosts {
        precondition(!host.contains("/") && !host.contains(" ") && host == host.lowercased(), "allowed host \(host)")
    }
    if string("http.allowed_hosts") == nil { precondition(http.allowedHosts.isEmpty, "allowed hosts from nowhere") }
    if string("http.cors_origins") == nil { precondition(http.corsOrigins.isEmpty, "CORS origins from nowhere") }
    if let token = http.token {
        precondition(token.count >= HTTPSettings.minimumTokenLength && !token.contains(where: \.isWhitespace), "weak token accepted")
    } else {
        precondition(string("http.token") == nil, "a token lost")
    }
    precondition((1024...(256 << 20)).contains(http.maxBodyBytes), "max_body_bytes")
    precondition((1...10_000).contains(http.maxEventClients), "max_event_clients")
    precondition((8...100_000).contains(http.maxConnections), "max_connections")
    precondition((1...3600).contains(http.idleTimeoutSeconds), "idle_timeout")
}
