import CrateCore
import CratePlugins
import CrateTestSupport
import Foundation
import Testing
import CrateDomain

@Suite struct SettingsLoaderTests {
    let dir: URL
    init() throws { dir = try Fixture.temporaryDirectory("crate-config") }

    func load(yaml: String? = nil, env: [String: String] = [:]) async throws -> Settings {
        var environment = ["HOME": dir.path]
        environment.merge(env) { $1 }
        var path: String?
        if let yaml {
            let file = dir.appendingPathComponent("config.yaml")
            try Data(yaml.utf8).write(to: file)
            path = file.path
        }
        return try await SettingsLoader.load(configPath: path, environment: environment, plugins: CratePlugins.list)
    }

    @Test func defaultsFollowXDG() async throws {
        let s = try await load()
        #expect(s.dataDirectory.path == dir.path + "/.local/share/crate")
        #expect(s.output == "auto" && s.httpHost == "127.0.0.1" && s.httpPort == Settings.defaultHTTPPort)
        #expect(s.enabledSources == ["localfiles", "applecatalog", "urlstream"] && s.configFile == nil)
    }

    @Test func xdgConfigFileIsFoundWithoutFlags() async throws {
        let cfg = dir.appendingPathComponent("xdg/crate")
        try FileManager.default.createDirectory(at: cfg, withIntermediateDirectories: true)
        try Data("output:\n  plugin: null\n".utf8).write(to: cfg.appendingPathComponent("config.yaml"))
        let s = try await load(env: ["XDG_CONFIG_HOME": dir.appendingPathComponent("xdg").path])
        #expect(s.output == "null")
    }

    @Test func yamlFileSetsEveryKey() async throws {
        let s = try await load(yaml: """
            data:
              directory: \(dir.path)/data
            sources:
              enabled: [localfiles]
            decoders:
              order: [mp3, flac]
              disabled: [wav]
            output:
              plugin: wav
              pulse:
                server: unix:/tmp/pulse.sock
                sink: speakers
              wav:
                path: \(dir.path)/out.wav
            http:
              address: "127.0.0.1:7001"
            log:
              level: debug
            """)
        #expect(s.dataDirectory.path == dir.path + "/data")
        #expect(s.decoderOrder == ["mp3", "flac"] && s.disabledDecoders == ["wav"])
        // Former output.* keys still work, each with a warning naming its new place.
        #expect(s.output == "wav" && s.plugin("outputs.pulse").string("server") == "unix:/tmp/pulse.sock")
        #expect(s.plugin("outputs.pulse").string("sink") == "speakers")
        #expect(s.plugin("outputs.wav").path("path") == dir.path + "/out.wav")
        #expect(s.httpPort == 7001 && s.logLevel == "debug")
        #expect(s.warnings.count == 3 && s.warnings.contains { $0.contains("'output.pulse.sink'") && $0.contains("'outputs.pulse.sink'") })
    }

    @Test func pluginBlocksAreReadUnderTheirOwnNames() async throws {
        let s = try await load(yaml: """
            outputs:
              pulse: {server: "unix:/run/p", sink: dac}
            sources:
              applecatalog: {storefront: gb, team_id: TEAM123456}
            catalog:
              storefront: de
            """, env: ["CRATE_SOURCES_APPLECATALOG_USER_TOKEN": "secret-user", "CRATE_CATALOG_KEY_ID": "KEY1234567"])
        #expect(s.plugin("outputs.pulse").string("sink") == "dac")
        // The new name wins over the former one; a former name alone is used, with a warning.
        #expect(s.plugin("sources.applecatalog").string("storefront") == "gb")
        #expect(s.plugin("sources.applecatalog").string("key_id") == "KEY1234567")
        #expect(s.plugin("sources.applecatalog").string("user_token") == "secret-user")
        #expect(s.warnings == ["config key 'catalog.key_id' (env CRATE_CATALOG_KEY_ID) is deprecated: use 'sources.applecatalog.key_id' (env CRATE_SOURCES_APPLECATALOG_KEY_ID)"])
        // The plugin checks its own values and says which key is wrong through its status.
        var bad = s
        bad.setPluginValue("sources.applecatalog.storefront", "xyz")
        let runtime = try CrateRuntime(settings: bad, plugins: CratePlugins.list)
        let catalog = try #require(runtime.pluginDescriptors().first { $0.name == "applecatalog" })
        #expect(!catalog.available && catalog.reason?.contains("sources.applecatalog.storefront") == true, "\(catalog)")
    }

    @Test func environmentWinsOverTheFile() async throws {
        let s = try await load(yaml: "output:\n  plugin: wav\n",
                               env: ["CRATE_OUTPUT_PLUGIN": "null", "CRATE_DECODERS_ORDER": "opus, flac",
                                     "CRATE_HTTP_ADDRESS": "8123"])
        #expect(s.output == "null" && s.decoderOrder == ["opus", "flac"] && s.httpPort == 8123)
        #expect(s.origins["output.plugin"] == .env && s.origins["decoders.order"] == .env && s.origins["log.level"] == nil)
        let file = try await load(yaml: "log:\n  level: debug\nsources:\n  urlstream:\n    buffer_kb: 256\n",
                                  env: ["CRATE_SOURCES_URLSTREAM_CONNECT_TIMEOUT": "3"])
        #expect(file.origins["log.level"] == .file && file.origins["sources.urlstream.buffer_kb"] == .file)
        #expect(file.origins["sources.urlstream.connect_timeout"] == .env && file.origins["http.address"] == nil)
    }

    @Test func environmentNamesAreTheKeysInCapitals() {
        #expect(SettingsLoader.environmentName(for: "output.plugin") == "CRATE_OUTPUT_PLUGIN")
        #expect(SettingsLoader.environmentName(for: "sources.urlstream.buffer_kb") == "CRATE_SOURCES_URLSTREAM_BUFFER_KB")
        #expect(SettingsLoader.environmentName(for: "outputs.stream.max_clients2") == "CRATE_OUTPUTS_STREAM_MAX_CLIENTS2")
    }

    @Test func invalidOutputNamesKeyAndAcceptedValues() async throws {
        let error = await #expect(throws: ConfigError.self) { try await load(yaml: "output:\n  plugin: jack\n") }
        let text = String(describing: error)
        #expect(text.contains("output.plugin") && text.contains("jack") && text.contains("auto, pulse, alsa, pipe, wav, null"), "\(text)")
        #expect(text.contains("CRATE_OUTPUT_PLUGIN"))
    }

    @Test func unknownDecoderNameIsRefused() async throws {
        let error = await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_DECODERS_ORDER": "flac,mad"]) }
        #expect(String(describing: error).contains("'mad'"))
    }

    @Test func badAddressAndLogLevelAreRefused() async throws {
        await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_HTTP_ADDRESS": "localhost:99999"]) }
        await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_LOG_LEVEL": "loud"]) }
    }

    @Test func malformedYAMLNamesTheFile() async throws {
        let error = await #expect(throws: ConfigError.self) { try await load(yaml: "output: [unclosed\n") }
        #expect(String(describing: error).contains("config.yaml"))
    }

    @Test func explicitMissingConfigIsAnError() async throws {
        await #expect(throws: ConfigError.missingFile(path: "/nonexistent/crate.yaml")) {
            try await SettingsLoader.load(configPath: "/nonexistent/crate.yaml", environment: [:], plugins: CratePlugins.list)
        }
    }

    @Test func httpAccessKeysAreReadAndChecked() async throws {
        let s = try await load(yaml: """
            http:
              address: 0.0.0.0:7000
              allowed_hosts: [Music.Home, "192.168.1.5:7000"]
              cors_origins: http://app.example:5173
              token: a-long-enough-token
              max_body_bytes: 4096
              max_event_clients: 3
              idle_timeout: 5
            """)
        #expect(s.http.allowedHosts == ["music.home", "192.168.1.5:7000"])
        #expect(s.http.corsOrigins == ["http://app.example:5173"])
        #expect(s.http.token == "a-long-enough-token" && s.http.maxBodyBytes == 4096)
        #expect(s.http.maxEventClients == 3 && s.http.idleTimeoutSeconds == 5)
        #expect(s.httpClientAddress == "127.0.0.1:7000")
        try s.checkHTTPExposure()
        #expect(s.http.accepts(token: "a-long-enough-token") && !s.http.accepts(token: "a-long-enough-tokeN"))
        #expect(s.http.sessionValue != nil && s.http.sessionValue != s.http.token)

        var open = s
        open.http.token = nil
        #expect(throws: ConfigError.tokenRequired(address: "0.0.0.0:7000")) { try open.checkHTTPExposure() }
        for host in ["127.0.0.1", "127.3.2.1", "localhost", "::1"] {
            open.httpHost = host
            try open.checkHTTPExposure()
        }
        // A short token is refused without echoing it; so are origins with paths and a zero limit.
        let short = await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_HTTP_TOKEN": "abc"]) }
        #expect(!String(describing: short).contains("abc") && String(describing: short).contains("16 characters"))
        await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_HTTP_CORS_ORIGINS": "http://a.example/path"]) }
        await #expect(throws: ConfigError.self) { try await load(env: ["CRATE_HTTP_MAX_EVENT_CLIENTS": "0"]) }
    }

    @Test func tokenFileMustBeTheOwnersAlone() async throws {
        let file = dir.appendingPathComponent("token")
        try Data("file-token-0123456789\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        await #expect(throws: ConfigError.secretFileTooOpen(key: "http.token_file", path: file.path, mode: "640")) {
            try await load(env: ["CRATE_HTTP_TOKEN_FILE": file.path])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let s = try await load(env: ["CRATE_HTTP_TOKEN_FILE": file.path])
        #expect(s.http.token == "file-token-0123456789" && s.http.tokenFile == file.path)
    }
}
