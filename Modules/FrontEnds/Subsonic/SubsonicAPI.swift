import CrateCore
import CrateDomain
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The services the endpoints call: Core's, as the other front ends reach them.
struct SubsonicServices: Sendable {
    let runtime: CrateRuntime
    let jobs: LibraryJobs
    let player: PlayerService
    let logger: Logger
    let settings: SubsonicSettings
    /// Apps' "now playing" notices, for getNowPlaying: one board per listener, in memory.
    let nowPlaying = NowPlayingBoard()

    var collection: MusicCollection { runtime.collection }
}

/// A request's context: Hummingbird's, and the address it came from (sign-in failures are slowed per address).
struct SubsonicRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

/// One signed-in request, as an endpoint sees it.
struct SubsonicCall {
    let name: String
    let parameters: SubsonicParameters
    let account: Account
    let services: SubsonicServices
    let request: Request
    let context: SubsonicRequestContext
    /// The account's stars, ratings and plays, read once per request when an answer lists items.
    let items: SubsonicItems
}

/// What an endpoint answers: a payload inside the envelope, or media (a file, a picture).
enum SubsonicReply {
    case payload(SubsonicObject)
    case media(Response)

    /// The empty answer (`star`, `scrobble`, …): the envelope alone.
    static var ok: SubsonicReply { .payload(SubsonicObject()) }
}

/// An endpoint: who may call it and what it does.
enum SubsonicEndpoint: Sendable {
    /// Answered without signing in (the spec requires it of getOpenSubsonicExtensions).
    case open(@Sendable () -> SubsonicObject)
    case signedIn(@Sendable (SubsonicCall) async throws -> SubsonicReply)
    /// For admin accounts only; others get error 50.
    case admin(@Sendable (SubsonicCall) async throws -> SubsonicReply)
}

/// The OpenSubsonic API under /rest/: each request is parsed (query and form body), signed in, dispatched by name
/// (`getAlbum` and `getAlbum.view` alike, GET or POST) and answered in the format it asked for.
enum SubsonicAPI {
    /// Every endpoint this version answers (Docs/SUBSONIC.md lists them).
    static let endpoints: [String: SubsonicEndpoint] = SystemEndpoints.all
        .merging(BrowsingEndpoints.all) { first, _ in first }
        .merging(ListEndpoints.all) { first, _ in first }
        .merging(AnnotationEndpoints.all) { first, _ in first }
        .merging(MediaEndpoints.all) { first, _ in first }
        .merging(FolderEndpoints.all) { first, _ in first }
        .merging(InfoEndpoints.all) { first, _ in first }
        .merging(GenreSongsEndpoints.all) { first, _ in first }
        .merging(UserEndpoints.all) { first, _ in first }
        .merging(NowPlayingEndpoints.all) { first, _ in first }
        .merging(RadioEndpoints.all) { first, _ in first }
        .merging(JukeboxEndpoints.all) { first, _ in first }
        .merging(LyricsEndpoints.all) { first, _ in first }
        .merging(PlaylistEndpoints.all) { first, _ in first }

    static func router(runtime: CrateRuntime, jobs: LibraryJobs, player: PlayerService, logger: Logger,
                       settings: SubsonicSettings = SubsonicSettings()) -> Router<SubsonicRequestContext> {
        let services = SubsonicServices(runtime: runtime, jobs: jobs, player: player, logger: logger, settings: settings)
        let router = Router(context: SubsonicRequestContext.self)
        for method in [HTTPRequest.Method.get, .post] {
            router.on("rest/:endpoint", method: method) { request, context in
                await respond(to: request, context: context, services: services)
            }
        }
        return router
    }

    static func respond(to request: Request, context: SubsonicRequestContext, services: SubsonicServices) async -> Response {
        var request = request
        guard let name = SubsonicParameters.endpoint(fromPath: request.uri.path) else {
            return Response(status: .notFound)
        }
        let parameters: SubsonicParameters
        do {
            parameters = try await SubsonicParameters.read(&request)
        } catch {
            let fromQuery = SubsonicParameters(SubsonicParameters.decodeForm(request.uri.query ?? ""))
            return envelope(SubsonicEnvelope.error(SubsonicAuth.error(for: error)), format: SubsonicFormat(fromQuery))
        }
        let format = SubsonicFormat(parameters)
        if case .open(let answer)? = endpoints[name] {
            return envelope(SubsonicEnvelope.document(answer()), format: format)
        }
        let account: Account
        do {
            try checkVersion(parameters)
            let credentials = try SubsonicAuth.credentials(parameters)
            account = try services.runtime.accounts.authenticate(credentials, from: context.remoteAddress)
        } catch {
            let failure = SubsonicAuth.error(for: error)
            // The name asked for and the endpoint only: the query carries the password, token or key.
            services.logger.debug("subsonic: \(name) refused for '\(parameters.string("u") ?? "(api key)")': \(failure.message)")
            return envelope(SubsonicEnvelope.error(failure), format: format)
        }
        services.logger.debug("subsonic: \(account.name) \(name)")
        let call = SubsonicCall(name: name, parameters: parameters, account: account, services: services, request: request,
                                context: context, items: SubsonicItems(services: services, account: account))
        do {
            let reply: SubsonicReply
            switch endpoints[name] {
            case .signedIn(let run)?: reply = try await run(call)
            case .admin(let run)?:
                guard account.isAdmin else { throw SubsonicError.adminOnly(name) }
                reply = try await run(call)
            case .open?, nil:
                throw SubsonicError(.generic, "Crate does not offer \(name) yet (Docs/SUBSONIC.md lists what it does)")
            }
            switch reply {
            case .payload(let payload): return envelope(SubsonicEnvelope.document(payload), format: format)
            case .media(let response): return response
            }
        } catch {
            let failure = describe(error)
            services.logger.debug("subsonic: \(account.name) \(name) failed: \(failure.message)")
            return envelope(SubsonicEnvelope.error(failure), format: format)
        }
    }

    /// Clients name the API version they speak (`v`); one newer than 1.x cannot be served. A missing or unreadable
    /// `v` (or `c`) is accepted: some apps leave them out.
    static func checkVersion(_ parameters: SubsonicParameters) throws(SubsonicError) {
        guard let text = parameters.string("v"), let major = text.split(separator: ".").first.flatMap({ Int($0) }) else { return }
        if major > 1 {
            throw SubsonicError(.serverTooOld, "Crate speaks the Subsonic API \(SubsonicEnvelope.apiVersion); this app asks for \(text)")
        }
    }

    /// A failure as the app is told it: not-found errors as 70, everything else as 0 with its message.
    static func describe(_ error: any Error) -> SubsonicError {
        switch error {
        case let error as SubsonicError: error
        case let error as StoreError:
            switch error {
            case .notFound, .albumNotFound, .trackNotFound: SubsonicError(.notFound, error.description)
            default: SubsonicError(.generic, error.description)
            }
        case let error as StationError:
            if case .notFound = error { SubsonicError(.notFound, error.description) } else { SubsonicError(.generic, error.description) }
        default: SubsonicError(.generic, ErrorText.describe(error))
        }
    }

    static func envelope(_ document: SubsonicObject, format: SubsonicFormat) -> Response {
        Response(status: .ok, headers: [.contentType: format.contentType],
                 body: .init(byteBuffer: ByteBuffer(string: format.render(document))))
    }
}
