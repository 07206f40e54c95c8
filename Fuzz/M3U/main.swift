import CrateDomain
import Foundation

/// Fuzz target: M3U/M3U8 import (`M3U.decode`: per-line UTF-8/Latin-1, `#EXTINF`, BOMs), where each entry points
/// (`locate`: absolute, relative, backslashes, Windows drives and UNC paths, URLs), the "Artist - Title" readings,
/// and writing the items back out and reading them again (for crashes only: the round trip is not
/// promised to be exact).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let items = M3U.decode(Data(bytes: data, count: size))
    let folder = URL(fileURLWithPath: "/music/playlists", isDirectory: true)
    for item in items {
        precondition(!item.location.isEmpty, "an empty location")
        _ = M3U.locate(item, relativeTo: folder)
        _ = M3U.path(of: item, relativeTo: folder)
        if let title = item.title { _ = M3U.artistAndTitle(title) }
    }
    _ = M3U.parse(M3U.write(items))
    return 0
}
