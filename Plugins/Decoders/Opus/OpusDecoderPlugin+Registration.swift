public import CrateDomain

extension OpusDecoderPlugin {
    public static let registration = PluginRegistration.decoder("opus") { _ in OpusDecoderPlugin() }
}
