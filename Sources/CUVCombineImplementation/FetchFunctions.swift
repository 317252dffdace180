import CUVCombine
import UVCombineHTTPClient
import UVCombineHTTPCore

// The fetch functions of uvcombine.h, checked against the header by the
// compiler (`@c @implementation`); the header documents them.

/// Starts one request; `cb` runs once with the outcome. Any thread. See `uvc_fetch` in uvcombine.h.
@c @implementation
public func uvc_fetch(_ session: OpaquePointer?, _ request: UnsafePointer<uvc_request_t>?, _ cb: uvc_fetch_cb?,
                      _ user_data: UnsafeMutableRawPointer?,
                      _ fetch_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fetch_out?.pointee = nil
    guard let session, let request, let cb, let fetch_out else { return Status.invalid }
    let spec: FetchRequest
    do throws(FetchRequest.Refusal) {
        spec = try FetchRequest.read(request)
    } catch {
        return error.status
    }
    let object = SessionObject.from(session)
    let metrics = object.collectsMetrics ? FetchMetrics() : nil
    var options = UVURLSession.RequestOptions()
    options.metricsHandler = metrics?.handler
    let publisher = BodyTaskPublisher<HTTPBody>(
        task: object.session.taskRequest(request: spec.request, bytes: spec.body, options: options),
        session: object.session)
    let fetch = FetchObject(loop: object.loop, callback: cb, userData: user_data, metrics: metrics)
    // Under the loop's phase lock: a detach or close that follows ends the
    // fetch (and drops the queued subscription). Subscribed on the loop, so
    // that the callback never runs inside this call.
    let status = object.loop.whileActive {
        object.loop.register(fetch)
        object.loop.loop.schedule(options: nil) { publisher.receive(subscriber: fetch) }
    }
    if status == Status.ok { fetch_out.pointee = fetch.retainedPointer }
    return status
}

/// A fetch's metrics in all. Any thread. See `uvc_fetch_metrics` in uvcombine.h.
@c @implementation
public func uvc_fetch_metrics(_ fetch: OpaquePointer?, _ metrics: UnsafeMutablePointer<uvc_fetch_metrics_t>?) -> Int32 {
    guard let fetch, let metrics, let collected = FetchObject.from(fetch).metrics else { return Status.invalid }
    return collected.read(into: metrics)
}

/// One request's metrics of a fetch. Any thread. See `uvc_fetch_transaction_metrics` in uvcombine.h.
@c @implementation
public func uvc_fetch_transaction_metrics(_ fetch: OpaquePointer?, _ index: UInt32,
                                          _ transaction: UnsafeMutablePointer<uvc_transaction_metrics_t>?) -> Int32 {
    guard let fetch, let transaction, let collected = FetchObject.from(fetch).metrics else { return Status.invalid }
    return collected.read(transaction: index, into: transaction)
}

/// Cancels a fetch; its callback never runs afterwards. Any thread. See `uvc_fetch_cancel` in uvcombine.h.
@c @implementation
public func uvc_fetch_cancel(_ fetch: OpaquePointer?) -> Int32 {
    guard let fetch else { return Status.invalid }
    return FetchObject.from(fetch).cancel()
}

/// Cancels (if pending) and frees a fetch. Any thread. See `uvc_fetch_free` in uvcombine.h.
@c @implementation
public func uvc_fetch_free(_ fetch: OpaquePointer?) -> Int32 {
    guard let fetch else { return Status.invalid }
    _ = FetchObject.from(fetch).cancel()
    FetchObject.release(fetch)
    return Status.ok
}

/// Prepares one request for several callbacks. Any thread. See `uvc_shared_fetch_new` in uvcombine.h.
@c @implementation
public func uvc_shared_fetch_new(_ session: OpaquePointer?, _ request: UnsafePointer<uvc_request_t>?,
                                 _ shared_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    shared_out?.pointee = nil
    guard let session, let request, let shared_out else { return Status.invalid }
    let spec: FetchRequest
    do throws(FetchRequest.Refusal) {
        spec = try FetchRequest.read(request)
    } catch {
        return error.status
    }
    let object = SessionObject.from(session)
    guard object.loop.isActive else { return Status.cancelled }
    shared_out.pointee = SharedFetchObject(session: object, request: spec).retainedPointer
    return Status.ok
}

/// Subscribes a callback to a shared fetch not started yet. Any thread. See `uvc_shared_fetch_subscribe` in uvcombine.h.
@c @implementation
public func uvc_shared_fetch_subscribe(_ shared: OpaquePointer?, _ cb: uvc_fetch_cb?,
                                       _ user_data: UnsafeMutableRawPointer?,
                                       _ fetch_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    fetch_out?.pointee = nil
    guard let shared, let cb, let fetch_out else { return Status.invalid }
    let object = SharedFetchObject.from(shared)
    let fetch = FetchObject(loop: object.loop, callback: cb, userData: user_data)
    let status = object.subscribe(fetch)
    if status == Status.ok { fetch_out.pointee = fetch.retainedPointer }
    return status
}

/// Sends the shared request once, in a later iteration. Any thread. See `uvc_shared_fetch_start` in uvcombine.h.
@c @implementation
public func uvc_shared_fetch_start(_ shared: OpaquePointer?) -> Int32 {
    guard let shared else { return Status.invalid }
    return SharedFetchObject.from(shared).start()
}

/// Cancels a shared fetch; waiting subscribers get UV_ECANCELED. Any thread. See `uvc_shared_fetch_cancel` in uvcombine.h.
@c @implementation
public func uvc_shared_fetch_cancel(_ shared: OpaquePointer?) -> Int32 {
    guard let shared else { return Status.invalid }
    return SharedFetchObject.from(shared).cancel()
}

/// Frees a shared fetch; a started one keeps going. Any thread. See `uvc_shared_fetch_free` in uvcombine.h.
@c @implementation
public func uvc_shared_fetch_free(_ shared: OpaquePointer?) -> Int32 {
    guard let shared else { return Status.invalid }
    SharedFetchObject.from(shared).releaseFromC()
    SharedFetchObject.release(shared)
    return Status.ok
}
