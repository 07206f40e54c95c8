public import Foundation

/// How a plugin joins Crate: its name, the settings block it reads (`sources.applecatalog.*`) and how to make it
/// from those settings. The composition root (CratePlugins) lists one registration per plugin; nothing else names
/// a plugin.
public struct PluginRegistration: Sendable {
    public let kind: PluginKind
    public let name: String
    /// The settings block, `sources.NAME`, `decoders.NAME`, `outputs.NAME` or `encoders.NAME`.
    public let block: String
    public let keys: [PluginSettingKey]
    private let make: @Sendable (PluginSettings) -> PluginParts

    public init(kind: PluginKind, name: String, keys: [PluginSettingKey] = [],
                make: @escaping @Sendable (PluginSettings) -> PluginParts) {
        self.kind = kind
        self.name = name
        block = "\(kind.rawValue)s.\(name)"
        self.keys = keys
        self.make = make
    }

    public static func source(_ name: String, keys: [PluginSettingKey] = [],
                              _ make: @escaping @Sendable (PluginSettings) -> any SourcePlugin) -> PluginRegistration {
        PluginRegistration(kind: .source, name: name, keys: keys) { PluginParts(sources: [make($0)]) }
    }

    public static func decoder(_ name: String, keys: [PluginSettingKey] = [],
                               _ make: @escaping @Sendable (PluginSettings) -> any DecoderPlugin) -> PluginRegistration {
        PluginRegistration(kind: .decoder, name: name, keys: keys) { PluginParts(decoders: [make($0)]) }
    }

    public static func output(_ name: String, keys: [PluginSettingKey] = [],
                              _ make: @escaping @Sendable (PluginSettings) -> any OutputPlugin) -> PluginRegistration {
        PluginRegistration(kind: .output, name: name, keys: keys) { PluginParts(outputs: [make($0)]) }
    }

    public static func encoder(_ name: String, keys: [PluginSettingKey] = [],
                               _ make: @escaping @Sendable (PluginSettings) -> any EncoderPlugin) -> PluginRegistration {
        PluginRegistration(kind: .encoder, name: name, keys: keys) { PluginParts(encoders: [make($0)]) }
    }

    /// Makes the plugin's parts from its block (an empty block when the config says nothing).
    public func parts(_ settings: PluginSettings) -> PluginParts { make(settings) }
}

/// What one plugin provides: usually one source, decoder or output; a source may bring input providers too
/// (URLStream reads `http:` and `https:`).
public struct PluginParts: Sendable {
    public var sources: [any SourcePlugin]
    public var decoders: [any DecoderPlugin]
    public var outputs: [any OutputPlugin]
    public var inputs: [any InputProvider]
    public var encoders: [any EncoderPlugin]

    public init(sources: [any SourcePlugin] = [], decoders: [any DecoderPlugin] = [], outputs: [any OutputPlugin] = [],
                inputs: [any InputProvider] = [], encoders: [any EncoderPlugin] = []) {
        self.sources = sources
        self.decoders = decoders
        self.outputs = outputs
        self.inputs = inputs
        self.encoders = encoders
    }
}

/// One key of a plugin's block, e.g. `team_id` of `sources.applecatalog`.
public struct PluginSettingKey: Sendable, Hashable {
    public var name: String
    /// Never printed or logged (`crate config` shows `(set)`).
    public var secret: Bool
    /// Names this key had before plugins owned their blocks; still read, with a deprecation warning.
    public var formerNames: [String]
    public var help: String
    /// The value the plugin uses when the key is not set, as `crate config` shows it; `<data.directory>` stands
    /// for Crate's data folder. Nil when the default is not a value (a library's own choice).
    public var defaultValue: String?

    public init(_ name: String, secret: Bool = false, formerly formerNames: [String] = [], default defaultValue: String? = nil,
                help: String) {
        self.name = name
        self.secret = secret
        self.formerNames = formerNames
        self.defaultValue = defaultValue
        self.help = help
    }
}

/// A plugin's block as read from the config file and `CRATE_*` environment: text per key (lists comma-joined);
/// the plugin parses and checks it and reports problems through its `PluginStatus`.
public struct PluginSettings: Sendable, Hashable {
    public let block: String
    public let values: [String: String]
    /// Crate's data folder, for defaults that live there (the WAV output's file).
    public let dataDirectory: URL

    public init(block: String, values: [String: String] = [:], dataDirectory: URL) {
        self.block = block
        self.values = values
        self.dataDirectory = dataDirectory
    }

    public func string(_ name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// A path, with `~/` expanded.
    public func path(_ name: String) -> String? {
        string(name).map { $0.hasPrefix("~/") ? FileManager.default.homeDirectoryForCurrentUser.path + $0.dropFirst(1) : $0 }
    }

    /// A yes/no key (true/false, yes/no, on/off, 1/0, any case): `fallback` when unset; a problem, for the plugin's
    /// status, when the value is none of these.
    public func bool(_ name: String, default fallback: Bool) -> (value: Bool, problem: String?) {
        guard let text = string(name) else { return (fallback, nil) }
        switch text.lowercased() {
        case "true", "yes", "on", "1": return (true, nil)
        case "false", "no", "off", "0": return (false, nil)
        default: return (fallback, problem(name, text, accepted: "true or false"))
        }
    }

    /// The full key, for messages: `sources.applecatalog.storefront`.
    public func key(_ name: String) -> String { "\(block).\(name)" }

    /// A problem with one key, as a plugin's `unavailable` reason.
    public func problem(_ name: String, _ value: String, accepted: String) -> String {
        "\(key(name)) has the invalid value '\(value)'; accepted: \(accepted)"
    }
}

/// The plugins one build of Crate ships, in registration order (the default decoder priority), and the output
/// order `output.plugin: auto` tries.
public struct PluginList: Sendable {
    public var registrations: [PluginRegistration]
    public var autoOutputOrder: [String]
    /// The front ends' settings blocks (`mpd`, `mpris`): read, checked for unknown keys and shown by `crate config` as
    /// plugins' blocks are.
    public var frontEndBlocks: [SettingsBlock]

    public init(_ registrations: [PluginRegistration], autoOutputOrder: [String], frontEndBlocks: [SettingsBlock] = []) {
        self.registrations = registrations
        self.autoOutputOrder = autoOutputOrder
        self.frontEndBlocks = frontEndBlocks
    }

    /// The list with one more plugin (tests and tools that bring their own).
    public func adding(_ registration: PluginRegistration) -> PluginList {
        PluginList(registrations + [registration], autoOutputOrder: autoOutputOrder, frontEndBlocks: frontEndBlocks)
    }

    /// Every settings block with its keys: each plugin's, then each front end's.
    public var settingsBlocks: [SettingsBlock] {
        registrations.map { SettingsBlock(block: $0.block, keys: $0.keys) } + frontEndBlocks
    }

    public func names(_ kind: PluginKind) -> [String] { registrations.filter { $0.kind == kind }.map(\.name) }

    /// The decoders, in registration order, made with empty settings blocks (for tools that only decode).
    public func decoders() -> [any DecoderPlugin] { defaultParts(.decoder).flatMap(\.decoders) }

    /// Every plugin's input providers (http/https from URLStream), made with empty settings blocks.
    public func inputs() -> [any InputProvider] { defaultParts(nil).flatMap(\.inputs) }

    private func defaultParts(_ kind: PluginKind?) -> [PluginParts] {
        registrations.filter { kind == nil || $0.kind == kind }
            .map { $0.parts(PluginSettings(block: $0.block, dataDirectory: FileManager.default.temporaryDirectory)) }
    }
}

/// A settings block and the keys it has: a plugin's (`outputs.pulse`) or a front end's (`mpd`).
public struct SettingsBlock: Sendable, Hashable {
    public let block: String
    public let keys: [PluginSettingKey]

    public init(block: String, keys: [PluginSettingKey]) {
        self.block = block
        self.keys = keys
    }
}
