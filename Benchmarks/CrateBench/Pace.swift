import CrateDomain
import Foundation
import NullOutput
import WAVFileOutput

/// `crate-bench pace [--seconds N]`: how closely the null and WAV file outputs keep time. Writes N seconds (default
/// 5) of a 44.1 kHz stereo sine in the engine's 4096-frame chunks, then drains, through each output as configured
/// by default (paced) and with `render: true`, and prints `key=value` lines: wall seconds and their ratio to N.
func paceCommand(_ args: ArraySlice<String>) throws {
    var reader = ArgumentReader(rest: args)
    var seconds = 5
    while let arg = reader.next() {
        switch arg {
        case "--seconds": seconds = try reader.positiveInt(after: arg)
        default: throw UsageError(description: "unknown option '\(arg)' for pace")
        }
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crate-bench-pace-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outputs: [(String, any OutputPlugin)] = [
        ("null", NullOutputPlugin()),
        ("null_render", NullOutputPlugin(render: true)),
        ("wav", WAVFileOutputPlugin(path: folder.appendingPathComponent("paced.wav"))),
        ("wav_render", WAVFileOutputPlugin(path: folder.appendingPathComponent("render.wav"), render: true)),
    ]
    let format = PCMFormat(sampleRate: 44100, channels: 2)
    let chunk = (0..<4096 * 2).map { Float(0.25 * sin(Double($0 / 2) * 2 * .pi * 440 / 44100)) }
    print("audio_seconds=\(seconds)")
    for (label, plugin) in outputs {
        let output = try plugin.makeOutput()
        let started = ContinuousClock.now
        try output.open(format)
        var frames = 0
        while frames < seconds * 44100 {
            let n = min(4096, seconds * 44100 - frames)
            try chunk.withUnsafeBufferPointer { try output.write(UnsafeBufferPointer(rebasing: $0[..<(n * 2)])) }
            frames += n
        }
        try output.drain()
        output.close()
        let wall = (ContinuousClock.now - started) / .seconds(1)
        print("\(label)_seconds=\(String(format: "%.3f", wall))")
        print("\(label)_ratio=\(String(format: "%.4f", wall / Double(seconds)))")
    }
}
