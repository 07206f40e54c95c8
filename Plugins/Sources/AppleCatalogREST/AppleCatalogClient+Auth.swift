public import CrateDomain
import Foundation

/// `crate catalog auth`: both tokens checked against the API, each problem said precisely.
extension AppleCatalogClient {
    /// Checks the developer token (`GET /v1/storefronts/{sf}`, which needs nothing else), then the
    /// Music-User-Token (`/v1/me/storefront`) and the subscription features (`/v1/me/library/albums`).
    /// Nothing is cached; tokens never appear in the report.
    public func authCheck() async -> CatalogAuthReport {
        var report = CatalogAuthReport(developerToken: .ok, userToken: .absent)
        report.developerTokenExpires = developerToken.expiry()
        let sf = config.storefront.lowercased()
        do throws(AppleCatalogError) {
            let probe = CatalogRequest(target: CatalogURL.target(["storefronts", sf]), label: "storefront \(sf)", cacheable: false)
            _ = try await fetch(probe)
            report.messages.append("developer token: ok (\(developerTokenOrigin(expires: report.developerTokenExpires)))")
        } catch {
            report.developerToken = .problem
            var text = error.description
            if error == .developerTokenExpired, let expired = report.developerTokenExpires {
                text += " (it expired on \(Self.day(expired)))"
            }
            report.developerTokenProblem = text
            report.messages.append("developer token: \(text)")
            if error == .developerTokenRejected { report.messages += credentialHints() }
        }

        if let problem = userToken.problem {
            report.userToken = .problem
            report.userTokenProblem = problem
            report.messages.append("user token: \(problem)")
        } else if userToken.token == nil {
            report.userToken = .absent
            report.messages.append("user token: none; set sources.applecatalog.user_token_file (or sources.applecatalog.user_token) for your library, "
                                   + "history, recommendations and ratings")
        } else if report.developerToken != .ok {
            report.userToken = .problem
            report.userTokenProblem = "not checked: the developer token must work first"
            report.messages.append("user token: not checked (the developer token must work first)")
        } else {
            await checkUserToken(into: &report)
        }
        report.storefront = report.storefront ?? knownStorefront ?? sf
        report.messages.append("storefront: \(report.storefront ?? sf)")
        return report
    }

    /// The same check when no client can be made (a key problem, no credentials): the reason becomes
    /// the developer-token problem, and the user token is reported as far as it can be without the API.
    public static func authCheck(config: AppleCatalogConfig) async -> CatalogAuthReport {
        do {
            return try await AppleCatalogClient(config: config).authCheck()
        } catch {
            var report = CatalogAuthReport(developerToken: .problem, developerTokenProblem: error.description,
                                           userToken: .absent, storefront: config.storefront.lowercased())
            report.messages.append("developer token: \(error.description)")
            let user = UserToken(config: config)
            if let problem = user.problem {
                report.userToken = .problem
                report.userTokenProblem = problem
                report.messages.append("user token: \(problem)")
            } else if user.token != nil {
                report.userToken = .problem
                report.userTokenProblem = "not checked: the developer token must work first"
                report.messages.append("user token: not checked (the developer token must work first)")
            } else {
                report.messages.append("user token: none")
            }
            return report
        }
    }

    private func checkUserToken(into report: inout CatalogAuthReport) async {
        do throws(AppleCatalogError) {
            let storefront = try await accountStorefront()
            knownStorefront = storefront
            report.storefront = storefront
        } catch {
            report.userToken = .problem
            let text = switch error {
            // The developer token just worked, so a 401 here is about the user.
            case .developerTokenRejected:
                "Apple Music refused the Music-User-Token (401): the user is not signed in or has no Apple Music subscription"
            default:
                error.description
            }
            report.userTokenProblem = text
            report.messages.append("user token: \(text)")
            return
        }
        do throws(AppleCatalogError) {
            let probe = CatalogRequest(target: CatalogURL.target(["me", "library", "albums"], [("limit", "1")]),
                                       label: "library albums", cacheable: false)
            // An empty library answers 404: the token and the subscription work all the same.
            _ = try await fetchIfFound(probe)
        } catch {
            report.userToken = .problem
            let text = switch error {
            case .userTokenRejected, .subscriptionRequired, .developerTokenRejected:
                AppleCatalogError.subscriptionRequired.description
            default:
                "the library could not be checked: \(error.description)"
            }
            report.userTokenProblem = text
            report.messages.append("user token: \(text)")
            return
        }
        report.userToken = .ok
        report.messages.append("user token: ok (account storefront \(report.storefront ?? "?"))")
    }

    private func developerTokenOrigin(expires: Date?) -> String {
        let until = expires.map { " until \(Self.day($0))" } ?? ""
        switch developerToken.origin {
        case let .signing(_, teamID, keyID, _):
            return "signed with key \(keyID) of team \(teamID), renewed automatically; this one is valid\(until)"
        case .ready:
            return "ready token from sources.applecatalog.developer_token" + (expires == nil ? ", expiry unknown" : ", valid\(until)")
        }
    }

    /// What to look at after a 401: Apple's ids are 10 characters.
    private func credentialHints() -> [String] {
        guard case let .signing(_, teamID, keyID, _) = developerToken.origin else {
            return ["hint: make a new developer token, or set sources.applecatalog.team_id, sources.applecatalog.key_id and sources.applecatalog.key_path"]
        }
        var hints: [String] = []
        if teamID.count != 10 { hints.append("hint: sources.applecatalog.team_id should be your 10-character Team ID") }
        if keyID.count != 10 { hints.append("hint: sources.applecatalog.key_id should be the 10-character Key ID of the .p8 key") }
        return hints
    }

    private static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day())
    }
}
