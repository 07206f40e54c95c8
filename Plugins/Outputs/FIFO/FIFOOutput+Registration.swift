public import CrateDomain

/// `outputs.fifo.*`.
extension FIFOOutputPlugin {
    public static let registration = PluginRegistration.output("fifo", keys: []) { _ in FIFOOutputPlugin() }
}
