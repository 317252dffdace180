import CUVCombine
import UVCombineCore
import UVCombineHTTPClient

/// A C fetch's task metrics (`uvc_fetch_metrics`,
/// `uvc_fetch_transaction_metrics`): made only for a fetch of a session
/// whose options set `collect_metrics`, it gives the session a ``UVURLSession/MetricsHandler``
/// and keeps what arrives in the header's structs, strings included, until
/// the fetch is freed.
///
/// Threading: the handler stores on the loop thread, once, before the
/// fetch's callback runs; the readers run on any thread. Both under the
/// lock; once stored nothing changes, so the strings' addresses stay valid
/// for the fetch's life.
internal final class FetchMetrics: Sendable {
    /// What arrived, in the header's shapes.
    private struct Stored: @unchecked Sendable {
        var task: uvc_fetch_metrics_t
        var transactions: [uvc_transaction_metrics_t]
        /// The strings the transactions point to, freed with the object.
        var strings: [UnsafeMutablePointer<CChar>]
    }

    private let stored = Locked<Stored?>(nil)

    internal init() {}

    deinit {
        stored.withLock { stored in
            for string in stored?.strings ?? [] { string.deallocate() }
        }
    }

    /// The handler for the fetch's request options.
    internal var handler: UVURLSession.MetricsHandler {
        UVURLSession.MetricsHandler { [self] metrics in store(metrics) }
    }

    /// Converts `metrics` into the header's structs. Loop thread, once.
    private func store(_ metrics: UVURLSessionTaskMetrics) {
        var strings: [UnsafeMutablePointer<CChar>] = []
        func copy(_ text: String?) -> UnsafePointer<CChar> {
            let utf8 = Array((text ?? "").utf8)
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
            for (index, byte) in utf8.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[utf8.count] = 0
            strings.append(buffer)
            return UnsafePointer(buffer)
        }
        func nanoseconds(_ instant: UVURLSessionTaskTransactionMetrics.Instant?) -> UInt64 {
            instant?.uptimeNanoseconds ?? 0
        }
        let transactions = metrics.transactionMetrics.map { transaction in
            uvc_transaction_metrics_t(
                size: MemoryLayout<uvc_transaction_metrics_t>.size,
                fetch_start_ns: nanoseconds(transaction.fetchStart),
                domain_lookup_start_ns: nanoseconds(transaction.domainLookupStart),
                domain_lookup_end_ns: nanoseconds(transaction.domainLookupEnd),
                connect_start_ns: nanoseconds(transaction.connectStart),
                connect_end_ns: nanoseconds(transaction.connectEnd),
                secure_connection_start_ns: nanoseconds(transaction.secureConnectionStart),
                secure_connection_end_ns: nanoseconds(transaction.secureConnectionEnd),
                request_start_ns: nanoseconds(transaction.requestStart),
                request_end_ns: nanoseconds(transaction.requestEnd),
                response_start_ns: nanoseconds(transaction.responseStart),
                response_end_ns: nanoseconds(transaction.responseEnd),
                request_header_bytes: UInt64(transaction.countOfRequestHeaderBytesSent),
                request_body_bytes: UInt64(transaction.countOfRequestBodyBytesSent),
                response_header_bytes: UInt64(transaction.countOfResponseHeaderBytesReceived),
                response_body_bytes: UInt64(transaction.countOfResponseBodyBytesReceived),
                status: Int32(clamping: transaction.response?.status.code ?? 0),
                reused_connection: transaction.isReusedConnection ? 1 : 0,
                proxy_connection: transaction.isProxyConnection ? 1 : 0,
                local_port: Int32(clamping: transaction.localPort ?? 0),
                remote_port: Int32(clamping: transaction.remotePort ?? 0),
                protocol: copy(transaction.networkProtocolName),
                local_address: copy(transaction.localAddress),
                remote_address: copy(transaction.remoteAddress))
        }
        let task = uvc_fetch_metrics_t(
            size: MemoryLayout<uvc_fetch_metrics_t>.size,
            task_start_ns: metrics.taskInterval.lowerBound.uptimeNanoseconds,
            task_end_ns: metrics.taskInterval.upperBound.uptimeNanoseconds,
            redirect_count: UInt32(clamping: metrics.redirectCount),
            transaction_count: UInt32(clamping: transactions.count))
        let unused = stored.withLock { stored -> [UnsafeMutablePointer<CChar>] in
            guard stored == nil else { return strings }
            stored = Stored(task: task, transactions: transactions, strings: strings)
            return []
        }
        for string in unused { string.deallocate() }
    }

    /// `uvc_fetch_metrics`: writes the task's figures to `out`.
    internal func read(into out: UnsafeMutablePointer<uvc_fetch_metrics_t>) -> Int32 {
        guard let size = OutputStruct.callerSize(out, fieldStarts: uvc_fetch_metrics_t.fieldStarts) else {
            return Status.invalid
        }
        return stored.withLock { stored in
            guard let stored else { return Status.busy }
            OutputStruct.write(stored.task, to: out, callerSize: size)
            return Status.ok
        }
    }

    /// `uvc_fetch_transaction_metrics`: writes the `index`-th transaction to `out`.
    internal func read(transaction index: UInt32, into out: UnsafeMutablePointer<uvc_transaction_metrics_t>) -> Int32 {
        guard let size = OutputStruct.callerSize(out, fieldStarts: uvc_transaction_metrics_t.fieldStarts) else {
            return Status.invalid
        }
        return stored.withLock { stored in
            guard let stored else { return Status.busy }
            guard Int(index) < stored.transactions.count else { return Status.invalid }
            OutputStruct.write(stored.transactions[Int(index)], to: out, callerSize: size)
            return Status.ok
        }
    }
}
