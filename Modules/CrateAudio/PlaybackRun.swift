import CrateDomain
import Foundation

/// Plays a list of files in order on one output, on the calling thread.
///
/// Gapless by construction: consecutive tracks of the same PCM format are written to the
/// already-open output with nothing in between, and decoders already strip encoder delay and
/// padding. The output is reopened only when the format changes at a border.
public struct PlaybackRun {
    public let decoders: DecoderRegistry
    public let output: any AudioOutput
    /// Frames per decode/write chunk: small enough to stop quickly, large enough to be cheap.
    public var chunkFrames = 4096

    public init(decoders: DecoderRegistry, output: any AudioOutput) {
        self.decoders = decoders
        self.output = output
    }

    public func play(_ items: [PlaybackItem], stop: StopSignal,
                     events: (PlaybackEvent) -> Void = { _ in }) throws -> PlaybackOutcome {
        var openFormat: PCMFormat?
        defer { output.close() }
        for (index, item) in items.enumerated() {
            if stop.isRaised { return .stopped }
            let decoder: any AudioDecoder
            do {
                decoder = try decoders.open(item.url)
            } catch {
                events(.trackSkipped(index: index, item: item, reason: ErrorText.describe(error)))
                continue
            }
            let format = decoder.info.pcmFormat
            guard format.channels > 0, format.sampleRate > 0 else {
                events(.trackSkipped(index: index, item: item, reason: "invalid stream format \(format)"))
                continue
            }
            if openFormat != format {
                if openFormat != nil { try output.drain() }
                try output.open(format)
                openFormat = format
                events(.outputOpened(format: format, destination: output.destination))
            }
            events(.trackStarted(index: index, item: item, info: decoder.info))
            var buffer = [Float](repeating: 0, count: chunkFrames * format.channels)
            var frames: Int64 = 0
            do {
                while !stop.isRaised {
                    let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
                    if n == 0 { break }
                    try buffer.withUnsafeBufferPointer { try output.write(UnsafeBufferPointer(rebasing: $0[0..<n * format.channels])) }
                    frames += Int64(n)
                }
            } catch let error as OutputError {
                throw error
            } catch {
                // A decode error mid-file ends that track; what was decoded has played.
                events(.trackSkipped(index: index, item: item, reason: ErrorText.describe(error)))
                continue
            }
            if stop.isRaised { return .stopped }
            events(.trackFinished(index: index, item: item, frames: frames))
        }
        if openFormat != nil { try output.drain() }
        return .finished
    }
}
