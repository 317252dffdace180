import HTTPTypes
import UVCombineHTTPAuthentication
import UVCombineHTTPCore

/// A task's answers to authentication challenges: made at its first
/// `401` or `407` that is answered, so a task that meets none allocates
/// nothing. Threading: the task's loop thread.
package final class TaskAuthentication {
    /// The request to send once the challenging response ended.
    package var pending: HTTPRequest?
    /// Whether the server's and the proxy's challenge were answered (each
    /// once).
    package var answeredServer = false
    package var answeredProxy = false

    package init() {}
}

// Authentication (UVURLSession.Credential): a `401` from the server, or a
// `407` from a forwarding proxy, answered once with Digest or Basic. The
// challenging response's body is read and dropped (the connection stays
// usable), then the request goes again with its `Authorization` (or
// `Proxy-Authorization`) field, as a redirect to the same URL would.
// `CONNECT` tunnels answer their proxy's challenge themselves
// (ProxyTunnelConnection): Basic up front, Digest on the same connection.
extension SessionEngine {
    // MARK: Authentication

    /// Whether `response` (status `statusCode`) is a challenge the task
    /// answers; if so the answer waits in `task.authentication.pending`
    /// and the caller drops the body.
    package func answersChallenge(_ task: SessionTask, _ response: HTTPResponse, statusCode: Int,
                                  on connection: SessionConnection) -> Bool {
        // A streamed body is gone once sent: it cannot go again.
        guard task.spec.streamedBody == nil else { return false }
        let target: AuthenticationTarget
        let username: String
        let password: String
        var schemes: UVURLSession.Credential.Schemes = [.basic, .digest]
        if statusCode == 401 {
            guard let credential = task.spec.options.credential ?? configuration.credential,
                  task.authentication?.answeredServer != true else { return false }
            target = .server
            (username, password, schemes) = (credential.username, credential.password, credential.schemes)
        } else {
            guard connection.isForwardProxied, let proxy = connection.key.proxy, let user = proxy.username,
                  task.authentication?.answeredProxy != true else { return false }
            target = .proxy
            (username, password) = (user, proxy.password ?? "")
        }
        let challenges = AuthenticationChallenge.challenges(in: response.headerFields, for: target)
        var request = task.request
        request.headerFields[target.authorizationFieldName] = nil
        // Digest needs libcrypto, loaded here at the first challenge; without
        // it the challenge is answered with Basic when allowed, or not.
        if schemes.contains(.digest), DigestAlgorithm.isAvailable,
           let challenge = DigestChallenge.first(in: challenges) {
            var digest = DigestAuthenticator(username: username, password: password, challenge: challenge)
            request.headerFields.append(digest.authorizationField(for: request, target: target, body: task.body))
        } else if schemes.contains(.basic), challenges.contains(where: { $0.hasScheme("Basic") }),
                  let value = try? BasicAuthentication.authorization(username: username, password: password) {
            request.headerFields.append(HTTPField(name: target.authorizationFieldName, value: value))
        } else {
            return false
        }
        let authentication = task.authentication ?? TaskAuthentication()
        if target == .server { authentication.answeredServer = true } else { authentication.answeredProxy = true }
        authentication.pending = request
        task.authentication = authentication
        return true
    }

    /// Sends the answered request, after the challenging response ended
    /// and its connection went back to the pool.
    package func sendAnswer(_ request: HTTPRequest, for task: SessionTask) {
        task.resetExchange()
        task.request = request
        task.usesPreparedHead = false
        issue(task, redirectedTo: nil)
    }
}
