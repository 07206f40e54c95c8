public import CrateDomain

/// `outputs.pipe.*`.
extension PipeOutputPlugin {
    public static let registration = PluginRegistration.output("pipe", keys: [
        .init("command", help: "a shell command that reads raw PCM on its stdin, e.g. `aplay -q -t raw -f cd` or `sox -t raw -r 44100 -e signed -b 16 -c 2 - out.flac`; it gets CRATE_RATE, CRATE_CHANNELS and CRATE_FORMAT"),
        .init("format", default: "s16le", help: "the samples written: s16le, s32le or f32le (little-endian, interleaved)"),
    ]) { s in
        let format = s.string("format") ?? "s16le"
        guard let sampleFormat = PipeOutputPlugin.SampleFormat(rawValue: format.lowercased()) else {
            return PipeOutputPlugin(command: s.string("command"),
                                    problem: s.problem("format", format, accepted: "s16le, s32le or f32le"))
        }
        return PipeOutputPlugin(command: s.string("command"), sampleFormat: sampleFormat)
    }
}
