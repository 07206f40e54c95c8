public import Foundation

/// Audio of a known loudness for the loudness tests, made at test time: pink noise from sox (repeatable with
/// `-R`), brought to a target level by measuring it with ffmpeg's `ebur128` filter; and ffmpeg's own EBU R128
/// summary of a file, the reference Crate's measurement is compared with.
public enum LoudnessFixture {
    /// ffmpeg's `ebur128` summary: integrated loudness (LUFS) and true peak (dBFS, from `peak=true`). ffmpeg prints
    /// them with one decimal.
    public static func ffmpegEBUR128(_ url: URL) throws -> (integrated: Double, truePeak: Double) {
        let text = try stderr(of: "ffmpeg", ["-hide_banner", "-nostats", "-nostdin", "-i", url.path,
                                             "-af", "ebur128=peak=true", "-f", "null", "-"])
        // The summary comes last; the per-frame log lines before it also hold "I:".
        guard let summary = text.range(of: "Summary:") else {
            throw Fixture.ToolError(description: "ffmpeg printed no ebur128 summary for \(url.path): \(text.suffix(500))")
        }
        let tail = text[summary.upperBound...]
        func value(after label: String) throws -> Double {
            for line in tail.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix(label) else { continue }
                let number = trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
                if let number, let v = Double(number) { return v }
            }
            throw Fixture.ToolError(description: "no '\(label)' in ffmpeg's ebur128 summary: \(tail)")
        }
        return (try value(after: "I:"), try value(after: "Peak:"))
    }

    /// `seconds` of stereo pink noise at `lufs` integrated loudness (as ffmpeg measures it), as 24-bit FLAC at
    /// `url`. sox makes the noise (repeatable), ffmpeg measures it, sox applies the difference.
    @discardableResult
    public static func pinkNoise(at lufs: Double, seconds: Double, sampleRate: Int = 48000, to url: URL) throws -> URL {
        let raw = url.deletingLastPathComponent().appendingPathComponent(".pink-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Fixture.run("sox", ["-R", "-n", "-r", "\(sampleRate)", "-c", "2", "-b", "24", raw.path,
                                "synth", String(format: "%.6f", seconds), "pinknoise", "gain", "-12"])
        let measured = try ffmpegEBUR128(raw).integrated
        try Fixture.run("sox", ["-R", raw.path, "-b", "24", url.path, "gain", String(format: "%.3f", lufs - measured)])
        return url
    }

    /// Runs a tool and returns its standard error (ffmpeg writes its filter summaries there).
    public static func stderr(of tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Fixture.ToolError(description: "\(tool) exited \(process.terminationStatus): \(text.suffix(1000))")
        }
        return text
    }
}
