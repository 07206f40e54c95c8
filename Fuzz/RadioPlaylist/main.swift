import Foundation

/// Fuzz target: the radio playlists a stream URL may answer with (`RadioPlaylist.entries`: PLS, XSPF's
/// `<location>` scanner, plain M3U, HLS refused), resolved against a base URL.
private let base = URL(string: "http://radio.example/stations/list.pls")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    do {
        let urls = try RadioPlaylist.entries(Data(bytes: data, count: size), base: base)
        precondition(!urls.isEmpty, "no entries but no error")
        for url in urls {
            let scheme = url.scheme?.lowercased()
            precondition(scheme == "http" || scheme == "https", "non-http entry \(url)")
        }
    } catch {
        _ = String(describing: error)
    }
    return 0
}
