public import CrateDomain

extension WAVDecoderPlugin {
    public static let registration = PluginRegistration.decoder("wav") { _ in WAVDecoderPlugin() }
}
