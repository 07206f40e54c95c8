// crate-bench: Crate's benchmarks, run by Benchmarks/decode.sh next to the reference tools.
//
//   crate-bench decode FILE [--repeat N] [--chunk-frames N]
//
// `decode` opens FILE with the decoder registry Crate builds (PluginCatalog.decoders(), default
// order), plays it through PlaybackRun into the null output, and prints `key=value` lines: the
// codec, frames decoded, wall seconds of each run and the best of N, and the realtime factor.
// Each timed run includes opening the file (what a play command pays too), not process start-up.

import CrateAudio
import CrateCore
import CrateDomain
import Foundation
import NullOutput

let usage = """
    usage: crate-bench decode FILE [--repeat N] [--chunk-frames N]

    decode   decode FILE through PlaybackRun into the null output, N times (default 1);
             prints key=value lines: codec, frames, seconds of each run, best_seconds, realtime_factor.
             --chunk-frames sets PlaybackRun's frames per read/write (default: Crate's own).
    """

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

struct DecodeOptions {
    var path: String
    var repeatCount = 1
    var chunkFrames: Int?

    init(_ args: ArraySlice<String>) throws {
        var path: String?
        var rest = args
        func positiveInt(after flag: String) throws -> Int {
            guard let text = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            guard let n = Int(text), n > 0 else {
                throw UsageError(description: "\(flag) needs a positive whole number, not '\(text)'")
            }
            return n
        }
        while let arg = rest.popFirst() {
            switch arg {
            case "--repeat", "-n": repeatCount = try positiveInt(after: arg)
            case "--chunk-frames": chunkFrames = try positiveInt(after: arg)
            case _ where arg.hasPrefix("-") && arg != "-": throw UsageError(description: "unknown option '\(arg)'")
            default:
                guard path == nil else { throw UsageError(description: "one FILE only; extra argument '\(arg)'") }
                path = arg
            }
        }
        guard let path else { throw UsageError(description: "decode needs a FILE") }
        self.path = path
    }
}

/// What one timed run of PlaybackRun produced.
struct RunResult {
    var info: StreamInfo
    var frames: Int64
    var seconds: Double
}

func seconds(_ d: Duration) -> Double {
    let c = d.components
    return Double(c.seconds) + Double(c.attoseconds) * 1e-18
}

/// Plays `url` once through PlaybackRun into a fresh null output, as `crate play --output null` would.
func decodeOnce(_ url: URL, decoders: DecoderRegistry, chunkFrames: Int?) throws -> RunResult {
    let counter = FrameCounter()
    let output = try NullOutputPlugin(counter: counter).makeOutput()
    var run = PlaybackRun(decoders: decoders, output: output)
    if let chunkFrames { run.chunkFrames = chunkFrames }
    let item = PlaybackItem(title: url.lastPathComponent, artist: "", url: url)
    var info: StreamInfo?
    var problem: String?
    let clock = ContinuousClock()
    let start = clock.now
    let outcome = try run.play([item], stop: StopSignal()) { event in
        switch event {
        case let .trackStarted(_, _, i): info = i
        case let .trackSkipped(_, _, reason): problem = reason
        default: break
        }
    }
    let elapsed = seconds(clock.now - start)
    if let problem { throw BenchFailure(description: problem) }  // names the file already
    guard outcome == .finished, let info else { throw BenchFailure(description: "\(url.path): playback did not finish") }
    return RunResult(info: info, frames: counter.frames, seconds: elapsed)
}

func decodeCommand(_ options: DecodeOptions) throws {
    let url = URL(fileURLWithPath: options.path)
    // The registry exactly as CrateRuntime builds it with default settings.
    let decoders = try DecoderRegistry(PluginCatalog.decoders())
    var runs: [RunResult] = []
    for _ in 0..<options.repeatCount {
        let r = try decodeOnce(url, decoders: decoders, chunkFrames: options.chunkFrames)
        if let first = runs.first, first.frames != r.frames {
            throw BenchFailure(description: "\(url.path): runs disagree: \(first.frames) then \(r.frames) frames")
        }
        runs.append(r)
    }
    guard let first = runs.first, let best = runs.map(\.seconds).min() else { return }
    let info = first.info
    let audioSeconds = Double(first.frames) / Double(info.sampleRate)
    let lines: [(String, String)] = [
        ("file", url.path),
        ("codec", info.codec),
        ("sample_rate", "\(info.sampleRate)"),
        ("channels", "\(info.channels)"),
        ("declared_frames", info.frames.map(String.init) ?? "unknown"),
        ("frames", "\(first.frames)"),
        ("audio_seconds", String(format: "%.3f", audioSeconds)),
        ("chunk_frames", "\(options.chunkFrames ?? PlaybackRun(decoders: decoders, output: NullAudioOutput()).chunkFrames)"),
        ("repeat", "\(runs.count)"),
        ("run_seconds", runs.map { String(format: "%.6f", $0.seconds) }.joined(separator: ",")),
        ("best_seconds", String(format: "%.6f", best)),
        ("realtime_factor", best > 0 ? String(format: "%.1f", audioSeconds / best) : "inf"),
    ]
    print(lines.map { "\($0)=\($1)" }.joined(separator: "\n"))
}

func writeError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func main(_ args: [String]) -> Int32 {
    let rest = args.dropFirst()
    guard let command = rest.first else {
        writeError(usage)
        return 2
    }
    do {
        switch command {
        case "decode":
            try decodeCommand(DecodeOptions(rest.dropFirst()))
        case "help", "-h", "--help":
            print(usage)
        default:
            throw UsageError(description: "unknown command '\(command)'")
        }
        return 0
    } catch let error as UsageError {
        writeError("crate-bench: \(error)\n\n\(usage)")
        return 2
    } catch {
        writeError("crate-bench: \(ErrorText.describe(error))")
        return 1
    }
}

exit(main(CommandLine.arguments))
