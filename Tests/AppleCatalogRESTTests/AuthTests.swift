@testable import AppleCatalogREST
import CrateDomain
import CrateTestSupport
import Crypto
import Foundation
import Testing

@Suite(.promptly) struct AuthTests {
    /// Issue 16, item 18: the no-user-token message names the environment variable too, and a rate of 0 requests
    /// a second is refused naming the key (it would stall every request).
    @Test func settingsMistakesAreNamed() {
        #expect(AppleCatalogError.userTokenMissing.description.contains("CRATE_SOURCES_APPLECATALOG_USER_TOKEN"))
        let dir = URL(fileURLWithPath: "/tmp")
        for bad in ["0", "-1", "101", "fast"] {
            let settings = PluginSettings(block: "sources.applecatalog", values: ["requests_per_second": bad], dataDirectory: dir)
            guard case .failure(let problem) = AppleCatalogSource.config(from: settings) else {
                Issue.record("requests_per_second \(bad) was accepted")
                continue
            }
            #expect(problem.reason.contains("sources.applecatalog.requests_per_second has the invalid value '\(bad)'"))
        }
    }

    // MARK: Key files

    @Test func aKeyFileOthersCanReadIsRefusedWithChmodAdvice() throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keys.keyPath)
        let config = AppleCatalogConfig(teamID: TestKeys.teamID, keyID: TestKeys.keyID, keyPath: keys.keyPath)
        #expect(throws: AppleCatalogError.keyFileTooOpen(path: keys.keyPath, mode: 0o644)) { try AppleCatalogClient(config: config) }
        let reason = AppleCatalogSource(config: config).status.reason
        #expect(reason == "the Apple Music key \(keys.keyPath) can be read by other users (mode 644); run: chmod 600 \(keys.keyPath)")

        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: keys.keyPath)   // group is "others" too
        #expect(throws: AppleCatalogError.keyFileTooOpen(path: keys.keyPath, mode: 0o640)) { try AppleCatalogClient(config: config) }
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: keys.keyPath)
        #expect(AppleCatalogSource(config: config).status == .available)
    }

    @Test func missingAndMalformedKeysSayWhat() throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let missing = keys.directory.appendingPathComponent("nope.p8").path
        #expect(throws: AppleCatalogError.keyFileUnreadable(path: missing, reason: "no such file or directory")) {
            try AppleCatalogClient(config: AppleCatalogConfig(teamID: "T", keyID: "K", keyPath: missing))
        }
        let garbage = keys.directory.appendingPathComponent("garbage.p8").path
        try TestKeys.write("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n", to: garbage, mode: 0o600)
        #expect(throws: AppleCatalogError.badKey(path: garbage, reason: "the PEM does not hold a P-256 private key")) {
            try AppleCatalogClient(config: AppleCatalogConfig(teamID: "T", keyID: "K", keyPath: garbage))
        }
        let text = keys.directory.appendingPathComponent("text.p8").path
        try TestKeys.write("hello", to: text, mode: 0o600)
        let error = AppleCatalogSource(config: AppleCatalogConfig(teamID: "T", keyID: "K", keyPath: text)).status.reason
        #expect(error?.hasPrefix("\(text) is not a usable Apple Music key") == true)
    }

    // MARK: Tokens

    @Test func theSignedTokenIsAnES256JWTCachedAndRenewedBeforeExpiry() throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        var source = try DeveloperTokenSource(config: AppleCatalogConfig(teamID: TestKeys.teamID, keyID: TestKeys.keyID,
                                                                        keyPath: keys.keyPath))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try source.token(now: now)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let headerData = try #require(FakeAppleMusic.base64url(parts[0]))
        let claimsData = try #require(FakeAppleMusic.base64url(parts[1]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == TestKeys.keyID)
        #expect(claims["iss"] as? String == TestKeys.teamID)
        #expect(claims["iat"] as? Int == 1_800_000_000)
        #expect(claims["exp"] as? Int == 1_800_000_000 + 180 * 86_400)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        let signature = try #require(FakeAppleMusic.base64url(parts[2]))
        #expect(signature.count == 64)   // raw r‖s
        let key = try P256.Signing.PublicKey(rawRepresentation: keys.publicKey)
        #expect(key.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature),
                                     for: Data((parts[0] + "." + parts[1]).utf8)))

        #expect(try source.token(now: now.addingTimeInterval(3600)) == token)               // cached
        #expect(try source.token(now: now.addingTimeInterval(178 * 86_400)) == token)       // two days left: kept
        let renewed = try source.token(now: now.addingTimeInterval(179.5 * 86_400))         // under a day left
        #expect(renewed != token)
        #expect(JWT.expiry(of: renewed) == now.addingTimeInterval(179.5 * 86_400 + 180 * 86_400))
    }

    @Test func everyRequestCarriesAVerifiedTokenAndTheSameOneWhileValid() async throws {
        try await withCatalog { server, client, _ in
            _ = try await client.genres()
            _ = try await client.album(id: "1500000001")
            let seen = await server.log.seen
            #expect(seen.count == 4)
            #expect(seen.allSatisfy { $0.jwtProblem == nil })
            #expect(Set(seen.compactMap(\.authorization)).count == 1)
        }
    }

    @Test func aReadyTokenIsUsedAsIsAndAnExpiredOneIsReported() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        let now = Date()
        let good = try keys.readyToken(issuedAt: now.addingTimeInterval(-86_400), expires: now.addingTimeInterval(30 * 86_400))
        let client = try AppleCatalogClient(config: AppleCatalogConfig(developerToken: good, baseURL: server.baseURL))
        _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 1)
        #expect(await server.log.seen.first?.authorization == "Bearer \(good)")

        let expired = try keys.readyToken(issuedAt: now.addingTimeInterval(-200 * 86_400), expires: now.addingTimeInterval(-86_400))
        let config = AppleCatalogConfig(developerToken: expired, baseURL: server.baseURL)
        let stale = try AppleCatalogClient(config: config)
        let error = await catalogError { _ = try await stale.genres() }
        #expect(error == .developerTokenExpired)
        #expect(await server.log.seen.count == 1)   // nothing sent with it
        let report = await stale.authCheck()
        #expect(report.developerToken == .problem)
        #expect(report.developerTokenProblem?.contains("has expired") == true)
        #expect(report.developerTokenProblem?.contains("expired on") == true)
        #expect(AppleCatalogSource(config: config).status.reason?.contains("developer token has expired") == true)
        #expect(AppleCatalogSource(config: config).client == nil)
        await server.stop()
    }

    // MARK: authCheck

    @Test func authCheckAllGood() async throws {
        var options = FakeAppleMusic.Options()
        options.meStorefront = "gb"
        try await withCatalog(options) { server, client, _ in
            let report = await client.authCheck()
            #expect(report.developerToken == .ok && report.userToken == .ok && report.isOK)
            #expect(report.storefront == "gb")
            #expect(report.messages.first?.hasPrefix("developer token: ok (signed with key \(TestKeys.keyID) of team \(TestKeys.teamID)") == true)
            #expect(report.messages.contains("user token: ok (account storefront gb)"))
            #expect(report.developerTokenExpires != nil)
            #expect(await server.log.requests(to: "/v1/storefronts/us").count == 1)
            // Tokens never appear in the report.
            let text = report.messages.joined(separator: "\n")
            #expect(!text.contains(FakeAppleMusic.goodUserToken) && !text.contains("eyJ"))
        }
    }

    @Test func authCheckSaysTheDeveloperTokenWasRejected() async throws {
        var options = FakeAppleMusic.Options()
        options.keyID = "OTHERKEY99"
        try await withCatalog(options) { _, client, _ in
            let report = await client.authCheck()
            #expect(report.developerToken == .problem && !report.isOK)
            #expect(report.developerTokenProblem == AppleCatalogError.developerTokenRejected.description)
            #expect(report.userToken == .problem)
            #expect(report.messages.contains("user token: not checked (the developer token must work first)"))
        }
    }

    @Test func authCheckSaysTheUserTokenWasRejected() async throws {
        try await withCatalog(configure: { $0.userToken = "expired-user-token" }) { _, client, _ in
            let report = await client.authCheck()
            #expect(report.developerToken == .ok)
            #expect(report.userToken == .problem)
            #expect(report.userTokenProblem == AppleCatalogError.userTokenRejected.description)
            #expect(report.storefront == "us")
        }
    }

    @Test func authCheckWithoutUserToken() async throws {
        try await withCatalog(configure: { $0.userToken = nil }) { server, client, _ in
            let report = await client.authCheck()
            #expect(report.developerToken == .ok && report.userToken == .absent && report.isOK)
            #expect(report.messages.contains { $0.hasPrefix("user token: none; set sources.applecatalog.user_token_file") })
            #expect(await server.log.count(pathPrefix: "/v1/me") == 0)
        }
    }

    @Test func authCheckSaysWhenTheSubscriptionIsMissing() async throws {
        var options = FakeAppleMusic.Options()
        options.override = { seen in
            seen.path == "/v1/me/library/albums"
                ? .error(403, code: "40015", title: "Insufficient Privileges", detail: "Subscription required") : nil
        }
        try await withCatalog(options) { _, client, _ in
            let report = await client.authCheck()
            #expect(report.userToken == .problem)
            #expect(report.userTokenProblem == AppleCatalogError.subscriptionRequired.description)
        }
    }

    @Test func authCheckWithoutAClientReportsTheConfigurationProblem() async throws {
        let report = await AppleCatalogClient.authCheck(config: AppleCatalogConfig(userToken: "x"))
        #expect(report.developerToken == .problem)
        #expect(report.developerTokenProblem == AppleCatalogError.notConfiguredText)
        #expect(report.userToken == .problem)   // set, but cannot be checked
        let keys = try TestKeys()
        defer { keys.remove() }
        let missingFile = keys.directory.appendingPathComponent("mut.txt").path
        let fileReport = await AppleCatalogClient.authCheck(config: AppleCatalogConfig(userTokenFile: missingFile))
        #expect(fileReport.userTokenProblem == "sources.applecatalog.user_token_file \(missingFile) does not exist")
    }

    // MARK: The source plugin

    @Test func theSourceIsUnavailableWithoutCredentialsAndSaysWhy() {
        let source = AppleCatalogSource(config: AppleCatalogConfig())
        #expect(source.name == "applecatalog" && source.schemes == ["applemusic"])
        #expect(source.status == .unavailable(reason:
            "not configured: set sources.applecatalog.team_id, sources.applecatalog.key_id and sources.applecatalog.key_path (or sources.applecatalog.developer_token)"))
        #expect(source.client == nil)
        let partial = AppleCatalogSource(config: AppleCatalogConfig(teamID: "TEAM123456"))
        #expect(partial.status.reason?.hasSuffix("; missing sources.applecatalog.key_id, sources.applecatalog.key_path") == true)
    }

    @Test func locateRefusesBecauseOfDRM() {
        let source = AppleCatalogSource(config: AppleCatalogConfig())
        #expect(throws: AppleCatalogError.previewOnly(ref: "applemusic:1500000101")) {
            try source.locate(TrackRef(source: "applemusic", id: "1500000101"))
        }
        let text = AppleCatalogError.previewOnly(ref: "applemusic:1500000101").description
        #expect(text == "applemusic:1500000101 cannot be played in full outside Apple's own players (DRM); "
            + "only its 30-second preview can be played")
    }

    @Test func theSourceSearchesTheCatalog() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        let source = AppleCatalogSource(config: keys.config(server))
        #expect(source.status == .available && source.client != nil)
        let groups = try await source.searchCatalog("kind of", limit: 3)
        #expect(groups.map(\.group) == [.artists, .albums, .tracks])
        #expect(groups.allSatisfy { ($0.catalog?.count ?? 0) > 0 && $0.catalog?.allSatisfy { $0.source == "applemusic" } == true })
        await server.stop()
    }

    @Test func configDescriptionsHideTokens() {
        let config = AppleCatalogConfig(teamID: "TEAM123456", developerToken: "eyJsecret", userToken: "mut-secret")
        for text in [String(describing: config), String(reflecting: config), "\(config)"] {
            #expect(!text.contains("secret"))
        }
        var dumped = ""
        dump(config, to: &dumped)
        #expect(!dumped.contains("secret"))
    }
}
