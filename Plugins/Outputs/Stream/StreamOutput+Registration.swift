public import CrateDomain

/// `outputs.stream.*`.
extension StreamOutputPlugin {
    public static let registration = PluginRegistration.output("stream", keys: []) { _ in StreamOutputPlugin() }
}
