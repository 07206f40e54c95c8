public import CrateDomain

extension MP3DecoderPlugin {
    public static let registration = PluginRegistration.decoder("mp3") { _ in MP3DecoderPlugin() }
}
