import CrateClient
public import Hummingbird
public import NIOCore

/// What a test reads of an answer.
public struct TestAnswer: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: ByteBuffer
}

/// A client of a `LoopbackServer`: every request a real HTTP/1.1 exchange on a connection of its own, through the
/// client the CLI uses (CrateClient's `HTTPExchange`).
public struct LoopbackClient: Sendable {
    public let port: Int

    /// The largest body a test reads.
    static let largestAnswer = 64 << 20

    public func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:],
                        body: ByteBuffer? = nil) async throws -> TestAnswer {
        let exchange = HTTPExchange(host: "127.0.0.1", port: port, method: method.rawValue, target: uri,
                                    headers: headers.map { (name: $0.name.rawName, value: $0.value) },
                                    body: body.map { Array($0.readableBytesView) })
        let answer = try await exchange.fetch(limit: Self.largestAnswer, timeout: .seconds(60))
        var fields = HTTPFields()
        for field in answer.headers {
            if let name = HTTPFields.Element.Name(field.name) { fields.append(HTTPFields.Element(name: name, value: field.value)) }
        }
        return TestAnswer(status: HTTPResponse.Status(code: answer.status), headers: fields, body: ByteBuffer(bytes: answer.body))
    }

    /// The same, handing the answer to `check`.
    public func execute<Value>(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
                               _ check: (TestAnswer) async throws -> Value) async throws -> Value {
        try await check(try await execute(uri: uri, method: method, headers: headers, body: body))
    }
}
