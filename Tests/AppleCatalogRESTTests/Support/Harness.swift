@testable import AppleCatalogREST
import Foundation

/// A fresh key, a fake Apple on loopback and a production client pointed at it; all torn down after.
func withCatalog(_ options: FakeAppleMusic.Options = FakeAppleMusic.Options(),
                 configure: (inout AppleCatalogConfig) -> Void = { _ in },
                 _ body: (FakeAppleMusic, AppleCatalogClient, TestKeys) async throws -> Void) async throws {
    let keys = try TestKeys()
    defer { keys.remove() }
    let server = try await FakeAppleMusic.start(keys: keys, options)
    do {
        var config = keys.config(server)
        configure(&config)
        let client = try AppleCatalogClient(config: config)
        try await body(server, client, keys)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs `body` and returns the `AppleCatalogError` it threw (nil when it threw nothing).
func catalogError(_ body: () async throws -> Void) async -> AppleCatalogError? {
    do {
        try await body()
        return nil
    } catch let error as AppleCatalogError {
        return error
    } catch {
        return .transport("unexpected error type: \(error)")
    }
}
