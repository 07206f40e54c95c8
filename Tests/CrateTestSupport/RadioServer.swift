public import Foundation
import Glibc

/// The loopback web server of the URLStream tests (`Tests/URLStreamSourceTests/radio_server.py`), serving audio
/// made by ffmpeg at start: file.mp3 (10 s), file.ogg (Vorbis), file.opus, file.flac, file.wav. Stopped on deinit.
public final class RadioServer {
    public let port: Int
    public let folder: URL
    private let process: ChildProcess

    public let scheme: String

    /// `tls` serves HTTPS with a self-signed certificate made by openssl, which a client must refuse.
    public init(tls: Bool = false) throws {
        folder = try Fixture.temporaryDirectory("crate-radio")
        scheme = tls ? "https" : "http"
        let frames = 441_000
        for codec in [Fixture.Codec.mp3, .vorbis, .opus, .flac, .wav] {
            let name = codec == .vorbis ? "file.ogg" : codec == .opus ? "file.opus" : "file.\(codec.suffix)"
            _ = try Fixture.encode(codec, to: folder.appendingPathComponent(name), frames: frames, frequency: 330)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("URLStreamSourceTests/radio_server.py")
        let log = folder.appendingPathComponent("server.log")
        // ChildProcess, not Foundation's Process: that hands the child the test thread's blocked SIGTERM.
        var arguments = ["python3", script.path, folder.path]
        if tls {
            let cert = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
            _ = try Fixture.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                            "-days", "1", "-subj", "/CN=127.0.0.1"])
            arguments += [cert, key]
        }
        process = try ChildProcess(arguments, output: log)
        // The first line is the port: the server prints it before serving.
        var port: Int?
        let deadline = Date().addingTimeInterval(20)
        while port == nil && Date() < deadline && !process.hasExited() {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, text.contains("\n") {
                port = Int(line)
            } else {
                usleep(20_000)
            }
        }
        guard let port else {
            process.stop(signal: SIGKILL)
            throw Fixture.ToolError(description: "the radio test server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        self.port = port
    }

    deinit {
        process.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }

    public func url(_ path: String) -> URL { URL(string: "\(scheme)://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/") }

    public func file(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    /// How many times the live and radio streams were requested.
    public func stats() throws -> [String: Int] {
        let data = try Data(contentsOf: url("/stats"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Int]) ?? [:]
    }
}
