/// Outputs by name, plus `auto`: the first of `autoOrder` whose status is available.
public struct OutputRegistry: Sendable {
    public static let auto = "auto"

    public let plugins: [any OutputPlugin]
    public let autoOrder: [String]

    public init(_ plugins: [any OutputPlugin], autoOrder: [String]) throws {
        var seen = Set<String>()
        for p in plugins where !seen.insert(p.name).inserted {
            throw RegistryError.duplicateName(kind: .output, name: p.name)
        }
        for name in autoOrder where !seen.contains(name) {
            throw RegistryError.unknownOutput(name: name, known: plugins.map(\.name))
        }
        self.plugins = plugins
        self.autoOrder = autoOrder
    }

    public var names: [String] { plugins.map(\.name) }

    /// The plugin for `choice` and one sentence saying which and why, for the log.
    public func resolve(_ choice: String) throws -> (plugin: any OutputPlugin, why: String) {
        if choice == Self.auto {
            var skipped: [String] = []
            for name in autoOrder {
                guard let plugin = plugins.first(where: { $0.name == name }) else { continue }
                switch plugin.checkStatus() {
                case .available:
                    let why = skipped.isEmpty
                        ? "output auto: using '\(name)' (first choice, available)"
                        : "output auto: using '\(name)' because " + skipped.joined(separator: "; ")
                    return (plugin, why)
                case .unavailable(let reason):
                    skipped.append("'\(name)' is unavailable (\(reason))")
                }
            }
            throw RegistryError.outputUnavailable(name: Self.auto, reason: skipped.joined(separator: "; "))
        }
        guard let plugin = plugins.first(where: { $0.name == choice }) else {
            throw RegistryError.unknownOutput(name: choice, known: [Self.auto] + names)
        }
        if case .unavailable(let reason) = plugin.checkStatus() {
            throw RegistryError.outputUnavailable(name: choice, reason: reason)
        }
        return (plugin, "output '\(choice)' chosen by configuration")
    }

    public var descriptors: [PluginDescriptor] {
        plugins.map { PluginDescriptor(name: $0.name, kind: .output, status: $0.checkStatus(), handles: []) }
    }
}
