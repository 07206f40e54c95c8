public import CrateDomain

extension FLACDecoderPlugin {
    public static let registration = PluginRegistration.decoder("flac") { _ in FLACDecoderPlugin() }
}
