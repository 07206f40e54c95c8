/// Whether a plugin can work on this machine now. An unavailable plugin says why,
/// and start-up goes on without it.
public enum PluginStatus: Sendable, Hashable {
    case available
    case unavailable(reason: String)

    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    public var reason: String? {
        if case .unavailable(let reason) = self { return reason }
        return nil
    }
}

public enum PluginKind: String, Sendable, Codable, CaseIterable {
    case source, decoder, output, encoder
}

/// One line of `crate plugins`: a provider, its kind, status and what it handles.
public struct PluginDescriptor: Sendable, Hashable, Codable {
    public var name: String
    public var kind: PluginKind
    public var available: Bool
    public var reason: String?
    /// What it handles: schemes for sources, suffixes for decoders.
    public var handles: [String]

    public init(name: String, kind: PluginKind, status: PluginStatus, handles: [String]) {
        self.name = name
        self.kind = kind
        self.available = status.isAvailable
        self.reason = status.reason
        self.handles = handles
    }
}
