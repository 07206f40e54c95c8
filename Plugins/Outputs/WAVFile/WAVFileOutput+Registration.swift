public import CrateDomain
import Foundation

/// `outputs.wav.*` (formerly `output.wav.path`).
extension WAVFileOutputPlugin {
    public static let registration = PluginRegistration.output("wav", keys: [
        .init("path", formerly: ["output.wav.path"], default: "<data.directory>/output.wav", help: "the file written (default <data.directory>/output.wav; a format change writes output.2.wav, …)"),
        .init("render", default: "false",
              help: "true: write as fast as the decoder runs (tests, benchmarks); false: keep time like a sound card"),
    ]) { s in
        let render = s.bool("render", default: false)
        return WAVFileOutputPlugin(path: s.path("path").map { URL(fileURLWithPath: $0) } ?? s.dataDirectory.appendingPathComponent("output.wav"),
                                   render: render.value, problem: render.problem)
    }
}
