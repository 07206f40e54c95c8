import ArgumentParser
import CrateCore
import FoundationEssentials
import CrateDomain

struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the effective settings (config file + CRATE_* environment + defaults).")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Print only this key's value, e.g. data.directory.") var get: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        let s = runtime.settings
        var values: [(String, String)] = [
            ("config.file", s.configFile?.path ?? "(none)"),
            ("data.directory", s.dataDirectory.path),
            ("database", s.databaseURL.path),
            ("sources.enabled", s.enabledSources.joined(separator: ",")),
            ("decoders.order", s.decoderOrder.joined(separator: ",")),
            ("decoders.disabled", s.disabledDecoders.joined(separator: ",")),
            ("output.plugin", s.output),
            ("http.address", "\(s.httpHost):\(s.httpPort)"),
            ("http.allowed_hosts", s.http.allowedHosts.joined(separator: ",")),
            ("http.cors_origins", s.http.corsOrigins.joined(separator: ",")),
            // Secrets: only whether they are set.
            ("http.token", s.http.token == nil ? "" : "(set)"),
            ("http.token_file", s.http.tokenFile ?? ""),
            ("http.max_body_bytes", "\(s.http.maxBodyBytes)"),
            ("http.max_event_clients", "\(s.http.maxEventClients)"),
            ("http.max_connections", "\(s.http.maxConnections)"),
            ("http.idle_timeout", "\(s.http.idleTimeoutSeconds)"),
            ("log.level", s.logLevel),
        ]
        // Each plugin's block, as the plugin declares it; secrets show only whether they are set.
        for registration in runtime.plugins.registrations {
            let block = s.plugin(registration.block)
            for key in registration.keys {
                let value = block.string(key.name)
                values.append((block.key(key.name), key.secret ? (value == nil ? "" : "(set)") : value ?? ""))
            }
        }
        if let get {
            guard let value = values.first(where: { $0.0 == get })?.1 else {
                throw CLIError("unknown key '\(get)'; keys: \(values.map(\.0).joined(separator: ", "))")
            }
            return print(value)
        }
        if json { return try printJSON(Dictionary(uniqueKeysWithValues: values)) }
        for (k, v) in values { print("\(pad(k, 38))\(v)") }
    }
}
