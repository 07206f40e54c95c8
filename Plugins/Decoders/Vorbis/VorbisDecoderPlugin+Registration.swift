public import CrateDomain

extension VorbisDecoderPlugin {
    public static let registration = PluginRegistration.decoder("vorbis") { _ in VorbisDecoderPlugin() }
}
