import Synchronization

/// A type-erasing cancellable object that executes a provided closure when
/// cancelled, and cancels automatically when deinitialised.
///
/// Cancellation is idempotent: the closure runs at most once, whichever of
/// `cancel()` or `deinit` comes first. Threading: `cancel()` may be called
/// from any thread, also concurrently; hashing and equality use identity.
///
/// ```swift
/// var storage = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &storage)
/// storage.removeAll() // cancels the subscription
/// ```
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is the action inside the
    // mutex, taken out exactly once under the lock.
    // The one Mutex of the package's state not behind `Locked`: cancelling
    // swaps the action out of the box in one move, which through
    // `Locked.withLock` became a copy and a destroy of the action (value-
    // witness calls when it holds an existential): 7,800 against 7,986
    // instructions per `subject.share().sink { }` + cancel (callgrind).
    @usableFromInline internal let action: Mutex<UncheckedSendable<Action>>

    /// What cancelling does. A cancellable is never kept as a closure over
    /// its `cancel`, which would cost one more allocation per
    /// subscription: a class instance as itself with its type's `cancel`,
    /// anything else as an existential (stored inline).
    @usableFromInline
    internal enum Action: @unchecked Sendable {
        case closure(() -> Void)
        case cancellable(any Cancellable)
        /// A class instance and its type's `cancel`, as a non-capturing
        /// function formed where the type is known: cancelling then runs
        /// the specialised `cancel` (through the existential it ran the
        /// unspecialised generic one, some 600 instructions more for a
        /// sink) and costs no allocation.
        case object(AnyObject, (AnyObject) -> Void)
        case done

        @inlinable
        internal func run() {
            switch self {
            case .closure(let body): body()
            case .cancellable(let target): target.cancel()
            case .object(let target, let cancel): cancel(target)
            case .done: break
            }
        }
    }

    /// Creates a cancellable object that runs `cancel` when cancelled or
    /// deinitialised.
    ///
    /// ```swift
    /// let token = AnyCancellable { print("cancelled") }
    /// token.cancel() // Prints: "cancelled"
    /// ```
    public init(_ cancel: @escaping () -> Void) {
        action = Mutex(UncheckedSendable(.closure(cancel)))
    }

    /// Creates a cancellable object that forwards cancellation to
    /// `canceller`.
    ///
    /// ```swift
    /// let token = AnyCancellable(connectable.connect())
    /// ```
    @inlinable
    public init<C: Cancellable>(_ canceller: C) {
        // A plain class reference (one word; not a class-bound existential,
        // which carries a witness table).
        if _canBeClass(C.self) == 1 && MemoryLayout<C>.size == MemoryLayout<AnyObject>.size {
            action = Mutex(UncheckedSendable(.object(unsafeBitCast(canceller, to: AnyObject.self)) {
                unsafeBitCast($0, to: C.self).cancel()
            }))
        } else {
            action = Mutex(UncheckedSendable(.cancellable(canceller)))
        }
    }

    /// A cancellable whose activity has already ended: cancelling it does
    /// nothing (what `sink` returns for a publisher that completed during
    /// the call).
    @inlinable
    internal init(finished: Void) {
        action = Mutex(UncheckedSendable(.done))
    }

    deinit {
        cancel()
    }

    /// Lets go of the target without cancelling it, returning what it held
    /// (to be released by the caller outside any lock). Used by a `Sink`
    /// that completed, so its closures are released.
    @usableFromInline
    internal func detach() -> Action {
        action.withLock { box -> UncheckedSendable<Action> in
            // Swapped out, not copied and overwritten: a copy of the
            // action is a value-witness call when it holds an existential.
            var taken = UncheckedSendable(Action.done)
            swap(&taken, &box)
            return taken
        }.value
    }

    /// Cancels the activity; later calls do nothing.
    public func cancel() {
        detach().run()
    }

    /// Identity: two instances are equal only when they are the same object.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    /// Hashes the object identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// Stores this cancellable in the given collection.
    ///
    /// ```swift
    /// var bag: [AnyCancellable] = []
    /// subject.sink { _ in }.store(in: &bag)
    /// ```
    public func store<C: RangeReplaceableCollection>(in collection: inout C)
        where C.Element == AnyCancellable
    {
        collection.append(self)
    }

    /// Stores this cancellable in the given set.
    ///
    /// ```swift
    /// var storage = Set<AnyCancellable>()
    /// subject.sink { _ in }.store(in: &storage)
    /// ```
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }
}
