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
    /// The Digest answer's state per target, kept so that a `stale=true`
    /// challenge after it (RFC 7616 3.3) is answered once more with the
    /// new nonce.
    package var serverDigest: DigestAuthenticator?
    package var proxyDigest: DigestAuthenticator?
    /// Whether a `stale=true` challenge was answered already (each target
    /// once).
    package var answeredServerStale = false
    package var answeredProxyStale = false

    package init() {}
}

// Authentication (UVURLSession.Credential): a `401` from the server, or a
// `407` from a forwarding proxy, answered once with Digest or Basic; a
// Digest challenge with `stale=true` after a Digest answer (the nonce
// expired, the credentials were right: RFC 7616 3.3) is answered once more
// with its new nonce, without asking anyone. Any other second challenge,
// or a second stale one, is the response. The
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
            guard let credential = task.spec.options.credential ?? configuration.credential else { return false }
            if task.authentication?.answeredServer == true {
                return answersStaleChallenge(task, response, target: .server)
            }
            target = .server
            (username, password, schemes) = (credential.username, credential.password, credential.schemes)
        } else {
            guard connection.isForwardProxied, let proxy = connection.key.proxy, let user = proxy.username else {
                return false
            }
            if task.authentication?.answeredProxy == true {
                return answersStaleChallenge(task, response, target: .proxy)
            }
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
            let authentication = task.authentication ?? TaskAuthentication()
            if target == .server { authentication.serverDigest = digest } else { authentication.proxyDigest = digest }
            task.authentication = authentication
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

    /// Whether the second challenge `response` for `target`, after an
    /// answer, is answered once more: only a Digest challenge with
    /// `stale=true` after a Digest answer, and only the first such one; its
    /// new nonce is taken by the same ``DigestAuthenticator``.
    private func answersStaleChallenge(_ task: SessionTask, _ response: HTTPResponse,
                                       target: AuthenticationTarget) -> Bool {
        guard let authentication = task.authentication else { return false }
        let isServer = target == .server
        guard var digest = isServer ? authentication.serverDigest : authentication.proxyDigest,
              !(isServer ? authentication.answeredServerStale : authentication.answeredProxyStale),
              let challenge = DigestChallenge.first(in: AuthenticationChallenge.challenges(in: response.headerFields,
                                                                                          for: target)),
              challenge.isStale else { return false }
        digest.accept(challenge)
        var request = task.request
        request.headerFields[target.authorizationFieldName] = nil
        request.headerFields.append(digest.authorizationField(for: request, target: target, body: task.body))
        if isServer {
            authentication.serverDigest = digest
            authentication.answeredServerStale = true
        } else {
            authentication.proxyDigest = digest
            authentication.answeredProxyStale = true
        }
        authentication.pending = request
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
