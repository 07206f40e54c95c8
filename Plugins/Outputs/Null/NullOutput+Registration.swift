public import CrateDomain

extension NullOutputPlugin {
    public static let registration = PluginRegistration.output("null") { _ in NullOutputPlugin() }
}
