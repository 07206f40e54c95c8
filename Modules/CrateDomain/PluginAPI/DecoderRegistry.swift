public import Foundation

/// Decoders in priority order. For a file, the candidates are the available decoders that claim
/// its suffix (or MIME type), tried in that order until one succeeds.
///
/// A decoder's `status` is asked only once it claims the file or stream: asking may load its libraries (FFmpeg's
/// take 60 ms), which a process that never meets such a file should not pay.
public struct DecoderRegistry: Sendable {
    /// Every registered decoder, highest priority first.
    public let plugins: [any DecoderPlugin]

    /// `order` names decoders to put first, in that order; the rest keep registration order.
    /// `disabled` names decoders to leave out. Unknown names are an error listing the known ones.
    public init(_ plugins: [any DecoderPlugin], order: [String] = [], disabled: [String] = []) throws {
        var seen = Set<String>()
        for p in plugins where !seen.insert(p.name).inserted {
            throw RegistryError.duplicateName(kind: .decoder, name: p.name)
        }
        let known = plugins.map(\.name)
        for name in order + disabled where !seen.contains(name) {
            throw RegistryError.unknownDecoder(name: name, known: known)
        }
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        self.plugins = plugins.enumerated()
            .filter { !disabled.contains($0.element.name) }
            .sorted { (rank[$0.element.name] ?? order.count + $0.offset, $0.offset) < (rank[$1.element.name] ?? order.count + $1.offset, $1.offset) }
            .map(\.element)
    }

    public func candidates(forSuffix suffix: String) -> [any DecoderPlugin] {
        let s = suffix.lowercased()
        return plugins.filter { $0.suffixes.contains(s) && $0.status.isAvailable }
    }

    public func candidates(forMIMEType mime: String) -> [any DecoderPlugin] {
        let m = mime.lowercased()
        return plugins.filter { $0.mimeTypes.contains(m) && $0.status.isAvailable }
    }

    /// Every suffix an enabled decoder claims, without asking whether it is available: asking may load its
    /// libraries (FFmpeg's took 10-25 ms of every import and rescan, and memory in the daemon, whether or not the
    /// library had a single such file). A file is a candidate by its name; whether some decoder can read it is
    /// asked when it is probed, and a suffix no available decoder opens is a failure that says so.
    public var suffixes: Set<String> {
        Set(plugins.flatMap(\.suffixes))
    }

    public func probe(_ url: URL) throws -> ProbedFile {
        try firstSuccess(url) { try $0.probe(url) }
    }

    public func open(_ url: URL) throws -> any AudioDecoder {
        try firstSuccess(url) { try $0.open(url) }
    }

    /// Opens a stream: candidates are the decoders that recognise its first bytes, then those claiming its declared
    /// content type, then its suffix, each in priority order; each starts from byte 0. A FLAC file named `.mp3`
    /// plays. When none recognises anything, the error says what the bytes are not.
    public func open(stream: any ByteStream) throws -> any AudioDecoder {
        let input = RewindableStream(stream)
        // A few KiB say what the bytes are; more would run ahead of a radio stream's titles.
        let head = try input.peek(4096)
        guard !head.isEmpty else { throw DecodeError(path: stream.name, reason: "the stream is empty") }
        var candidates = plugins.filter { $0.recognizes(head: head) && $0.status.isAvailable }
        for extra in (stream.contentType.map(candidates(forMIMEType:)) ?? []) + (stream.suffixHint.map(candidates(forSuffix:)) ?? [])
        where !candidates.contains(where: { $0.name == extra.name }) {
            candidates.append(extra)
        }
        guard !candidates.isEmpty else {
            throw DecodeError(path: stream.name,
                              reason: "no decoder recognises this data (type \(stream.contentType ?? "unknown"), suffix \(stream.suffixHint ?? "none"))")
        }
        var firstError: (any Error)?
        for decoder in candidates {
            guard input.rewind() else { break }
            do { return try decoder.open(stream: input) } catch { firstError = firstError ?? error }
        }
        throw firstError ?? DecodeError(path: stream.name, reason: "no decoder could read it")
    }

    /// Tries each candidate in turn; when all fail, the highest-priority decoder's error is the one reported.
    private func firstSuccess<T>(_ url: URL, _ body: (any DecoderPlugin) throws -> T) throws -> T {
        let suffix = url.pathExtension
        let candidates = candidates(forSuffix: suffix)
        guard !candidates.isEmpty else {
            // Claimed, but its decoder cannot run here (FFmpeg's libraries missing): say why.
            if let claimant = plugins.first(where: { $0.suffixes.contains(suffix.lowercased()) }), let reason = claimant.status.reason {
                throw DecodeError(url: url, reason: "the \(claimant.name) decoder, which reads '.\(suffix)' files, is unavailable: \(reason)")
            }
            throw RegistryError.noDecoder(path: url.path, suffix: suffix)
        }
        var firstError: (any Error)?
        for decoder in candidates {
            do { return try body(decoder) } catch { firstError = firstError ?? error }
        }
        throw firstError ?? RegistryError.noDecoder(path: url.path, suffix: suffix)
    }

    public var descriptors: [PluginDescriptor] {
        plugins.map { PluginDescriptor(name: $0.name, kind: .decoder, status: $0.status, handles: $0.suffixes.map { ".\($0)" }) }
    }
}
