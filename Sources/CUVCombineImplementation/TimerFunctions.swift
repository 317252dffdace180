import CUVCombine
import UVCombineCore
import UVCombineLoop

// The timer functions of uvcombine.h, checked against the header by the
// compiler (`@c @implementation`); the header documents them.

/// Creates a timer publisher firing every `interval_ns` once connected. Any thread. See `uvc_timer_new` in uvcombine.h.
@c @implementation
public func uvc_timer_new(_ loop: OpaquePointer?, _ interval_ns: UInt64, _ tolerance_ns: UInt64,
                          _ timer_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    timer_out?.pointee = nil
    guard let loop, let timer_out, interval_ns > 0, interval_ns <= UInt64(Int64.max) else {
        return Status.invalid
    }
    let object = LoopObject.from(loop)
    guard object.isActive else { return Status.cancelled }
    // The tolerance is accepted and, as UVTimer.publish's, not used: the
    // uv_timer fires on its fixed schedule.
    _ = tolerance_ns
    let publisher = EpochTimerPublisher(interval: .nanoseconds(Int(interval_ns)), loop: object.loop)
    timer_out.pointee = TimerObject(loop: object, publisher: publisher).retainedPointer
    return Status.ok
}

/// Subscribes a C callback to every firing, until cancelled. Any thread. See `uvc_timer_subscribe` in uvcombine.h.
@c @implementation
public func uvc_timer_subscribe(_ timer: OpaquePointer?, _ cb: uvc_timer_cb?, _ user_data: UnsafeMutableRawPointer?,
                                _ subscription_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    subscription_out?.pointee = nil
    guard let timer, let cb, let subscription_out else { return Status.invalid }
    let object = TimerObject.from(timer)
    let subscription = SubscriptionObject(callback: cb, userData: user_data)
    // Under the loop's phase lock: a detach or close that follows ends it.
    let status = object.loop.whileActive { object.publisher.subscribe(subscription) }
    if status == Status.ok { subscription_out.pointee = subscription.retainedPointer }
    return status
}

/// Starts a `uv_timer_t` for the timer's subscribers. Any thread. See `uvc_timer_connect` in uvcombine.h.
@c @implementation
public func uvc_timer_connect(_ timer: OpaquePointer?,
                              _ connection_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    connection_out?.pointee = nil
    guard let timer, let connection_out else { return Status.invalid }
    let object = TimerObject.from(timer)
    var connection: (any Cancellable)?
    // Under the loop's phase lock: a detach or close that follows stops it.
    let status = object.loop.whileActive { connection = object.publisher.connect() }
    if let connection {
        connection_out.pointee = ConnectionObject(connection: connection).retainedPointer
    }
    return status
}

/// Frees a timer; its connections and subscriptions live on. Any thread. See `uvc_timer_free` in uvcombine.h.
@c @implementation
public func uvc_timer_free(_ timer: OpaquePointer?) -> Int32 {
    guard let timer else { return Status.invalid }
    TimerObject.release(timer)
    return Status.ok
}

/// Cancels a subscription; its callback never runs again. Any thread. See `uvc_subscription_cancel` in uvcombine.h.
@c @implementation
public func uvc_subscription_cancel(_ subscription: OpaquePointer?) -> Int32 {
    guard let subscription else { return Status.invalid }
    return SubscriptionObject.from(subscription).cancel()
}

/// Cancels (if needed) and frees a subscription. Any thread. See `uvc_subscription_free` in uvcombine.h.
@c @implementation
public func uvc_subscription_free(_ subscription: OpaquePointer?) -> Int32 {
    guard let subscription else { return Status.invalid }
    _ = SubscriptionObject.from(subscription).cancel()
    SubscriptionObject.release(subscription)
    return Status.ok
}

/// Stops a connection's timer and ends the timer's subscriptions. Any thread. See `uvc_connection_cancel` in uvcombine.h.
@c @implementation
public func uvc_connection_cancel(_ connection: OpaquePointer?) -> Int32 {
    guard let connection else { return Status.invalid }
    return ConnectionObject.from(connection).cancel()
}

/// Cancels (if needed) and frees a connection. Any thread. See `uvc_connection_free` in uvcombine.h.
@c @implementation
public func uvc_connection_free(_ connection: OpaquePointer?) -> Int32 {
    guard let connection else { return Status.invalid }
    _ = ConnectionObject.from(connection).cancel()
    ConnectionObject.release(connection)
    return Status.ok
}
