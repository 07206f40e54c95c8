public import CrateDomain

extension FFmpegEncoderPlugin {
    public static let registration = PluginRegistration.encoder("ffmpeg") { _ in FFmpegEncoderPlugin() }
}
