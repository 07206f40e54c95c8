public import CrateDomain

extension FFmpegDecoderPlugin {
    public static let registration = PluginRegistration.decoder("ffmpeg") { _ in FFmpegDecoderPlugin() }
}
