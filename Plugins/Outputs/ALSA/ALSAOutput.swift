import CALSA
public import CrateDomain
import Foundation

/// Plays through ALSA, the kernel's sound interface, without a sound server: the default device, a card as it is
/// (`hw:1,0`), with ALSA's conversion (`plughw:1,0`), or any PCM defined in an `asoundrc`. The blocking
/// `snd_pcm_writei` paces the playback thread, as the device plays.
public struct ALSAOutputPlugin: OutputPlugin {
    public let name = "alsa"
    public var isDevice: Bool { true }
    public let device: String

    public init(device: String = "default") {
        self.device = device
        ALSAPCM.quiet
    }

    /// Opens the device for a moment (without waiting for it), so a missing card or a busy one shows here.
    public func checkStatus() -> PluginStatus {
        var pcm: OpaquePointer?
        let err = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard err >= 0, let pcm else { return .unavailable(reason: ALSAPCM.describe(device, err, "cannot open")) }
        snd_pcm_close(pcm)
        return .available
    }

    public func makeOutput() throws -> any AudioOutput {
        ALSAPCM(device: device)
    }
}

/// One open ALSA PCM. The sample format is negotiated: 32-bit float when the device takes it, else signed 32,
/// then 16-bit, converted here (a `plughw:` or `default` device converts by itself and takes float).
public final class ALSAPCM: AudioOutput {
    public let device: String
    public private(set) var format: PCMFormat?
    /// The sample format the device accepted.
    public private(set) var sampleFormat: SampleFormat?
    private var pcm: OpaquePointer?
    private var converted: [UInt8] = []

    public enum SampleFormat: String, Sendable, CaseIterable {
        case float32 = "FLOAT_LE", s32 = "S32_LE", s16 = "S16_LE"

        var alsa: snd_pcm_format_t {
            switch self {
            case .float32: SND_PCM_FORMAT_FLOAT_LE
            case .s32: SND_PCM_FORMAT_S32_LE
            case .s16: SND_PCM_FORMAT_S16_LE
            }
        }

        var bytes: Int { conversion.bytes }

        var conversion: SampleConversion.Format {
            switch self {
            case .float32: .f32le
            case .s32: .s32le
            case .s16: .s16le
            }
        }
    }

    public init(device: String) {
        self.device = device
        Self.quiet
    }

    /// Once per process: libasound's own error printing off (see shim.h).
    static let quiet: Void = crate_alsa_quiet()

    deinit {
        if let pcm { snd_pcm_close(pcm) }
    }

    public var destination: String { "ALSA (\(device)\(sampleFormat.map { ", \($0.rawValue)" } ?? ""))" }

    public func open(_ format: PCMFormat) throws {
        if pcm != nil, format == self.format { return }
        close()
        guard format.channels > 0, format.sampleRate > 0 else {
            throw OutputError(output: "alsa", reason: "cannot play \(format)")
        }
        var handle: OpaquePointer?
        let err = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard err >= 0, let handle else { throw OutputError(output: "alsa", reason: Self.describe(device, err, "cannot open")) }
        // soft_resample 1: ALSA may resample where the device cannot take the rate; 200 ms of latency, as PulseAudio's.
        var last: Int32 = 0
        for candidate in SampleFormat.allCases {
            last = snd_pcm_set_params(handle, candidate.alsa, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(format.channels),
                                      UInt32(format.sampleRate), 1, 200_000)
            if last >= 0 {
                pcm = handle
                self.format = format
                sampleFormat = candidate
                return
            }
        }
        snd_pcm_close(handle)
        throw OutputError(output: "alsa", reason: Self.describe(device, last, "cannot play \(format.sampleRate) Hz, \(format.channels) channels"))
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let pcm, let format, let sampleFormat else { throw OutputError(output: "alsa", reason: "write before open") }
        guard samples.count % format.channels == 0 else {
            throw OutputError(output: "alsa", reason: "write of \(samples.count) samples is not whole \(format.channels)-channel frames")
        }
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        let frames = samples.count / format.channels
        if sampleFormat == .float32 {
            try writeFrames(pcm, UnsafeRawPointer(base), frames: frames, frameBytes: format.channels * 4)
            return
        }
        SampleConversion.convert(samples, to: sampleFormat.conversion, into: &converted)
        try converted.withUnsafeBytes { raw in
            guard let p = raw.baseAddress else { return }
            try writeFrames(pcm, p, frames: frames, frameBytes: format.channels * sampleFormat.bytes)
        }
    }

    /// Writes every frame, recovering from underruns (the device ran dry: it is prepared again and the write
    /// repeated) and suspends; anything else is an error naming the device.
    private func writeFrames(_ pcm: OpaquePointer, _ data: UnsafeRawPointer, frames: Int, frameBytes: Int) throws {
        var done = 0
        var recoveries = 0
        while done < frames {
            let n = snd_pcm_writei(pcm, data + done * frameBytes, snd_pcm_uframes_t(frames - done))
            if n >= 0 {
                done += Int(n)
                continue
            }
            let err = Int32(n)
            if err == -EINTR { continue }
            recoveries += 1
            guard recoveries <= 8, snd_pcm_recover(pcm, err, 1) >= 0 else {
                throw OutputError(output: "alsa", reason: Self.describe(device, err, "writing failed"))
            }
        }
    }

    public func drain() throws {
        guard let pcm else { return }
        let err = snd_pcm_drain(pcm)
        if err < 0 && err != -EPIPE { throw OutputError(output: "alsa", reason: Self.describe(device, err, "draining failed")) }
        _ = snd_pcm_prepare(pcm)
    }

    /// Drops what the device holds and keeps it open.
    public func flush() -> Bool {
        guard let pcm else { return false }
        return snd_pcm_drop(pcm) >= 0 && snd_pcm_prepare(pcm) >= 0
    }

    public func close() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
        self.pcm = nil
        format = nil
        sampleFormat = nil
    }


    static func describe(_ device: String, _ err: Int32, _ what: String) -> String {
        let text = String(cString: snd_strerror(err))
        var reason = "ALSA device '\(device)': \(what): \(text)"
        if err == -ENOENT || err == -ENODEV {
            reason += " (no such device here: `aplay -L` lists the devices; outputs.alsa.device chooses one)"
        } else if err == -EBUSY {
            reason += " (another program holds it: a sound server such as PulseAudio; use `default` or the server)"
        }
        return reason
    }
}
