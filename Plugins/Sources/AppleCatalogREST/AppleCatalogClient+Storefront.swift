import Foundation

/// The storefront (`us`, `gb`, …) that every catalog path names.
extension AppleCatalogClient {
    /// The storefront of catalog calls: the account's (`/v1/me/storefront`) when a user token is set,
    /// else `config.storefront`. Asked once per client.
    public func storefront() async throws -> String {
        try await resolveStorefront()
    }

    /// Concurrent first callers (a home page loading several shelves) share one lookup: the first asks,
    /// the others wait for its answer, each still free to be cancelled on its own.
    func resolveStorefront() async throws(AppleCatalogError) -> String {
        while true {
            if let knownStorefront { return knownStorefront }
            let fallback = config.storefront.lowercased()
            guard userToken.token != nil else {
                knownStorefront = fallback
                return fallback
            }
            guard storefrontLookupRunning else { return try await lookUpStorefront(fallback: fallback) }
            let result = await waitForStorefront()
            // The asking caller was cancelled: this one (if not cancelled itself) asks again.
            if case .failure(.cancelled) = result, !Task.isCancelled { continue }
            return try result.get()
        }
    }

    private func lookUpStorefront(fallback: String) async throws(AppleCatalogError) -> String {
        storefrontLookupRunning = true
        let result: Result<String, AppleCatalogError>
        do {
            result = .success(try await accountStorefront())
        } catch {
            switch error {
            // A user-token problem must not break catalog browsing, which needs no user token; the
            // personal calls report it themselves.
            case .userTokenRejected, .subscriptionRequired, .notFound, .badResponse, .developerTokenRejected:
                result = .success(fallback)
            default:
                result = .failure(error)
            }
        }
        if case .success(let id) = result { knownStorefront = id }
        storefrontLookupRunning = false
        let waiters = storefrontWaiters
        storefrontWaiters = [:]
        for waiter in waiters.values { waiter.resume(returning: result) }
        return try result.get()
    }

    private func waitForStorefront() async -> Result<String, AppleCatalogError> {
        let id = nextStorefrontWaiter
        nextStorefrontWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                } else {
                    storefrontWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.dropStorefrontWaiter(id) }
        }
    }

    private func dropStorefrontWaiter(_ id: Int) {
        storefrontWaiters.removeValue(forKey: id)?.resume(returning: .failure(.cancelled))
    }

    /// `GET /v1/me/storefront` → `data[0].id`.
    func accountStorefront() async throws(AppleCatalogError) -> String {
        let request = CatalogRequest.get(["me", "storefront"], label: "your storefront")
        let document = try decode(DataDocument.self, try await fetch(request), request)
        guard let id = document.data.first?.id, !id.isEmpty else {
            throw .badResponse(endpoint: CatalogURL.path(of: request.target), reason: "no storefront in the answer")
        }
        return id.lowercased()
    }
}
