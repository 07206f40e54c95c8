public import CrateDomain

/// `outputs.alsa.*`.
extension ALSAOutputPlugin {
    public static let registration = PluginRegistration.output("alsa", keys: [
        .init("device", default: "default",
              help: "an ALSA PCM: default, hw:1,0 (the card as it is), plughw:1,0 (with conversion), or a name from ~/.asoundrc"),
    ]) { s in ALSAOutputPlugin(device: s.string("device") ?? "default") }
}
