/// Sources by URI scheme. Two providers claiming one scheme is a start-up error naming both.
public struct SourceRegistry: Sendable {
    public let plugins: [any SourcePlugin]
    private let byScheme: [String: any SourcePlugin]

    public init(_ plugins: [any SourcePlugin]) throws {
        var byScheme: [String: any SourcePlugin] = [:]
        var names = Set<String>()
        for plugin in plugins {
            guard names.insert(plugin.name).inserted else {
                throw RegistryError.duplicateName(kind: .source, name: plugin.name)
            }
            for scheme in plugin.schemes.map({ $0.lowercased() }) {
                if let first = byScheme[scheme] {
                    throw RegistryError.duplicateScheme(scheme: scheme, first: first.name, second: plugin.name)
                }
                byScheme[scheme] = plugin
            }
        }
        self.plugins = plugins
        self.byScheme = byScheme
    }

    /// The available source for `scheme`, or an error saying there is none or why it is down.
    public func plugin(forScheme scheme: String) throws -> any SourcePlugin {
        guard let plugin = byScheme[scheme.lowercased()] else { throw RegistryError.noSource(scheme: scheme) }
        if case .unavailable(let reason) = plugin.status {
            throw RegistryError.sourceUnavailable(name: plugin.name, reason: reason)
        }
        return plugin
    }

    public func locate(_ ref: TrackRef) throws -> PlayableLocation {
        try plugin(forScheme: ref.source).locate(ref)
    }

    public var descriptors: [PluginDescriptor] {
        plugins.map { PluginDescriptor(name: $0.name, kind: .source, status: $0.status, handles: $0.schemes.map { "\($0):" }) }
    }
}
