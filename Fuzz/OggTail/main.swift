import CrateDomain
import Foundation

/// Fuzz target: the Ogg last-page check (`OggTail.checkComplete`), which reads the file's last 64 KiB itself, so
/// each input is written to a scratch file first (in /dev/shm when there is one).
private let scratch: URL = {
    let dir = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    return URL(fileURLWithPath: dir).appendingPathComponent("crate-fuzz-ogg-\(getpid()).ogg")
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard (try? bytes.write(to: scratch)) != nil else { fatalError("cannot write the scratch file \(scratch.path)") }
    _ = try? OggTail.checkComplete(scratch, size: Int64(size))
    return 0
}
