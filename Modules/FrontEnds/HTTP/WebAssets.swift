import Crypto
import CZlib
import Foundation
import NIOCore

/// The web page's files (`Apps/crated/Web`, shipped as the executable's resources), read once at start-up: each
/// with its type, a strong ETag (the SHA-256 of its bytes) and, for text, a gzip copy.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        var body: ByteBuffer
        var gzipped: ByteBuffer?
        var etag: String
        var contentType: String
    }

    let files: [String: Asset]
    /// Why there are none, when the folder could not be read (said once in the log and in every 404).
    let problem: String?

    static let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
                        "json": "application/json", "ico": "image/x-icon",
                        "webmanifest": "application/manifest+json"]

    /// The files under `folder` (default: the bundled `Web` folder), keyed by their path below it.
    static func load(from folder: URL? = Bundle.module.url(forResource: "Web", withExtension: nil)) -> WebAssets {
        guard let folder, let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return WebAssets(files: [:], problem: "the web page's files are not installed beside crated (Crate_crated.resources/Web)")
        }
        var files: [String: Asset] = [:]
        let base = folder.standardizedFileURL.path + "/"
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let data = try? Data(contentsOf: url) else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(base.count))
            let type = types[url.pathExtension.lowercased()] ?? "application/octet-stream"
            let text = type.hasPrefix("text/") || type.hasPrefix("image/svg") || type.hasSuffix("json")
            files[path] = Asset(body: ByteBuffer(bytes: data), gzipped: text ? gzip(data).map { ByteBuffer(bytes: $0) } : nil,
                                etag: etag(data), contentType: type)
        }
        return WebAssets(files: files, problem: files["index.html"] == nil ? "no index.html in \(folder.path)" : nil)
    }

    /// A strong ETag: the first 12 bytes of the SHA-256 of `data`, in hex.
    static func etag(_ data: Data) -> String {
        "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// One gzip member of `data`; nil when it would not be smaller.
    static func gzip(_ data: Data) -> Data? {
        var out = [UInt8](repeating: 0, count: Int(crate_gzip_bound(UInt(data.count))))
        var length = UInt(out.count)
        let status = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                crate_gzip(input.bindMemory(to: UInt8.self).baseAddress, UInt(data.count), output.baseAddress, &length)
            }
        }
        guard status == Z_OK, Int(length) < data.count else { return nil }
        return Data(out.prefix(Int(length)))
    }
}
