import HTTPTypes
import UVCombineHTTPCore

// Where a request goes: the connection key for its target (the session's
// Unix socket or a proxy instead of the origin), and the redirect policy's
// decisions on responses and the following of a redirect.
extension SessionEngine {
    // MARK: Routing: proxies and redirects

    /// The pool's key for the task's current target: its origin, through
    /// the session's Unix socket or a configured proxy. Routed for every
    /// target, so a redirect to another origin is routed afresh (its own
    /// scheme, its own no-proxy match).
    package func connectionKey(for task: SessionTask) throws(UVURLError) -> ConnectionKey {
        var key = task.currentKey
        if let path = configuration.unixSocketPath { key.socketPath = path }
        // Issue 33: the HTTP version is part of the key (SessionEngine+HTTP2.swift).
        applyHTTPVersion(of: task, to: &key)
        if routesThroughProxies && key.socketPath == nil {
            let target = task.currentTarget
            if let proxy = try configuration.proxy.proxy(for: target) {
                key = ConnectionKey(target: target, proxy: proxy)
                // A forwarding proxy gets absolute-form HTTP/1.1 requests.
                if !key.isForwardProxied { applyHTTPVersion(of: task, to: &key) }
            }
        }
        return key
    }

    /// What the redirect policy says of `response` (whose status code is
    /// `statusCode`, from the parser). A response that is no redirect is
    /// delivered without asking; at the first redirect the task's machine
    /// is made from its target and method, which are still the original
    /// ones then (only following a redirect changes them).
    package func redirectDecision(for task: SessionTask, response: HTTPResponse,
                                   statusCode: Int) -> RedirectStateMachine.Decision {
        switch statusCode {
        case 301, 302, 303, 307, 308:
            break
        default:
            if task.redirects == nil { return .deliver }
        }
        let redirects: Redirects
        if let existing = task.redirects {
            redirects = existing
        } else {
            redirects = Redirects(machine: RedirectStateMachine(policy: configuration.redirectPolicy,
                                                                target: task.currentTarget, method: task.request.method))
            task.redirects = redirects
        }
        return redirects.machine.decide(response: response, request: task.request)
    }

    /// Issues the request a redirect asks for, after the redirect
    /// response ended and its connection went back to the pool.
    package func follow(_ step: RedirectStateMachine.Step, for task: SessionTask) {
        task.resetExchange()
        task.request = step.request
        task.usesPreparedHead = false
        // The exchange machine stopped streaming the body itself
        // (`responseHead(.follow(keepsBody: false))`).
        if !step.keepsBody { task.body = nil }
        issue(task, redirectedTo: step.target)
    }
}
