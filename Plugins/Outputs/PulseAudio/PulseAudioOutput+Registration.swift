public import CrateDomain

/// `outputs.pulse.*` (formerly `output.pulse.*`).
extension PulseAudioOutputPlugin {
    public static let registration = PluginRegistration.output("pulse", keys: [
        .init("server", formerly: ["output.pulse.server"], help: "libpulse's server string, e.g. unix:/run/user/1000/pulse/native (default: $PULSE_SERVER, then the user's server)"),
        .init("sink", formerly: ["output.pulse.sink"], help: "a sink name from `pactl list sinks short` (default: the server's default sink)"),
    ]) { s in PulseAudioOutputPlugin(server: s.string("server"), sink: s.string("sink")) }
}
