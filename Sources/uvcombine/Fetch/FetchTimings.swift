import Synchronization
import UVCombineHTTP

/// Receives each hop's task metrics (the session calls its handler on the
/// loop thread, before the hop's outcome): the hop's last transaction is
/// the one that carried the response (earlier ones were retried).
final class FetchTimings: Sendable {
    private let last = Mutex<UVURLSessionTaskTransactionMetrics?>(nil)

    /// The handler to put in each hop's request options.
    var handler: UVURLSession.MetricsHandler {
        UVURLSession.MetricsHandler { [self] metrics in
            last.withLock { $0 = metrics.transactionMetrics.last }
        }
    }

    /// The last hop's transaction, once; nil when the hop sent nothing.
    func takeLastTransaction() -> UVURLSessionTaskTransactionMetrics? {
        last.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

extension FetchReport {
    /// Adds one hop's times as curl does (its `Curl_pgrsTime`): each time
    /// is measured from the hop's start and added to the earlier hops'
    /// (so with `-L`, `time_starttransfer` counts every hop's wait for
    /// its first byte); a reused connection adds nothing to the name
    /// lookup, connect and TLS times. The remote address is the one the
    /// connection reached (`localhost` gives `127.0.0.1`).
    mutating func add(hop transaction: UVURLSessionTaskTransactionMetrics) {
        guard let start = transaction.fetchStart else { return }
        func since(_ instant: UVURLSessionTaskTransactionMetrics.Instant?) -> Double {
            guard let instant, instant >= start else { return 0 }
            return Double(instant.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        }
        timeNamelookup += since(transaction.domainLookupEnd)
        timeConnect += since(transaction.connectEnd)
        timeAppconnect += since(transaction.secureConnectionEnd)
        timePretransfer += since(transaction.requestStart)
        timeStarttransfer += since(transaction.responseStart)
        if let address = transaction.remoteAddress {
            remoteIP = address
            remotePort = transaction.remotePort ?? remotePort
        }
    }
}
