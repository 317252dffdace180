import Synchronization

/// A type that publishes a property marked with an attribute.
///
/// `@Published` on a property of a class gives a publisher of that property
/// as `$property`. The publisher emits the current value when a subscriber
/// first requests, then every new value *before* the property changes
/// (in its `willSet`): a subscriber that reads the property sees the old
/// value. In an ``ObservableObject``, each change also makes the
/// synthesised `objectWillChange` emit, before the new value is published.
///
/// `@Published` is only available on properties of classes (the wrapper
/// reaches its enclosing instance, as Combine's does).
///
/// Threading: as with Combine, the property itself is not synchronised:
/// set it from one thread at a time. Values reach `$property` subscribers
/// on the thread that sets the property. A change costs no allocation:
/// one `send()` to `objectWillChange` when someone read it, one to the
/// `$property` subject when someone read that.
///
/// ```swift
/// class Weather {
///     @Published var temperature: Double
///     init(temperature: Double) { self.temperature = temperature }
/// }
///
/// let weather = Weather(temperature: 20)
/// let c = weather.$temperature.sink { print("Temperature now: \($0)") }
/// weather.temperature = 25
/// // Prints: "Temperature now: 20.0"
/// // Prints: "Temperature now: 25.0"
/// ```
@propertyWrapper
public struct Published<Value> {
    @usableFromInline internal let box: PublishedBox<Value>

    /// Creates the publisher with an initial value.
    ///
    /// ```swift
    /// @Published var username: String = ""
    /// ```
    @inlinable
    public init(wrappedValue: Value) {
        box = PublishedBox(wrappedValue)
    }

    /// Creates the publisher with an initial value (the older spelling).
    ///
    /// ```swift
    /// var _count = Published(initialValue: 0)
    /// ```
    @inlinable
    public init(initialValue: Value) {
        self.init(wrappedValue: initialValue)
    }

    /// Unavailable: `@Published` is only available on properties of classes.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError("@Published is only available on properties of classes") }
        set { fatalError("@Published is only available on properties of classes") } // swiftlint:disable:this unused_setter_value
    }

    /// The property's publisher, `$property`. Setting it does nothing (it
    /// exists so that `assign(to: &$property)` can take it `inout`).
    ///
    /// ```swift
    /// let c = model.$name.sink { print($0) }
    /// ```
    public var projectedValue: Publisher {
        mutating get { Publisher(box: box) }
        set {} // swiftlint:disable:this unused_setter_value
    }

    /// The enclosing-instance access the compiler uses for `@Published`
    /// properties of classes: the getter reads the stored value; the setter
    /// sends `objectWillChange` (if it was ever read), then the new value
    /// to `$property` subscribers (if any), then stores it.
    @inlinable
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].box.value }
        set { object[keyPath: storageKeyPath].box.set(newValue) }
    }

    /// The publisher of a `@Published` property (`$property`): it emits the
    /// current value on a subscriber's first demand, then each new value
    /// before the property changes. It never fails and never completes.
    ///
    /// It does not retain the object: a pipeline from `$property` keeps
    /// only the property's subject alive.
    ///
    /// ```swift
    /// let c = model.$count.map { $0 * 2 }.sink { print($0) }
    /// ```
    public struct Publisher: UVCombineCore.Publisher {
        /// The property's type.
        public typealias Output = Value
        /// It never fails.
        public typealias Failure = Never

        @usableFromInline internal let box: PublishedBox<Value>

        @inlinable
        internal init(box: PublishedBox<Value>) {
            self.box = box
        }

        /// Attaches `subscriber` to the property's subject.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            box.subject.receive(subscriber: subscriber)
        }
    }
}

/// What `ObservableObject`'s default `objectWillChange` looks for when it
/// walks an object's fields once.
internal protocol PublishedField {
    var publishedBox: PublishedBoxBase { get }
}

extension Published: PublishedField {
    internal var publishedBox: PublishedBoxBase { box }
}

/// The part of a `@Published` property's storage that does not depend on
/// its type: the object's `objectWillChange` once installed, and the
/// subscriptions that `assign(to:)` made (cancelled with the storage).
@usableFromInline
internal class PublishedBoxBase {
    /// Installed once by `ObservableObject.objectWillChange`'s default
    /// implementation; read on every change (an atomic load).
    @usableFromInline internal let objectWillChange = AtomicLazyReference<ObservableObjectPublisher>()
    /// Subscriptions made by `assign(to: &$property)`.
    internal let assignments = Locked<[any Subscription]>([])

    @usableFromInline
    internal init() {}

    deinit {
        let subscriptions = assignments.withLock { state -> [any Subscription] in
            defer { state = [] }
            return state
        }
        for subscription in subscriptions { subscription.cancel() }
    }

    /// Keeps `subscription` until the storage goes away.
    internal func adopt(_ subscription: any Subscription) {
        assignments.withLock { $0.append(subscription) }
    }
}

/// A `@Published` property's storage: the value, and the subject behind
/// `$property`, created on first use.
@usableFromInline
internal final class PublishedBox<Value>: PublishedBoxBase {
    @usableFromInline internal var value: Value
    @usableFromInline internal let lazySubject = AtomicLazyReference<CurrentValueSubject<Value, Never>>()

    @inlinable
    internal init(_ value: Value) {
        self.value = value
        super.init()
    }

    /// The subject behind `$property`, created holding the current value.
    @inlinable
    internal var subject: CurrentValueSubject<Value, Never> {
        if let subject = lazySubject.load() { return subject }
        return lazySubject.storeIfNil(CurrentValueSubject(value))
    }

    /// Announces, publishes, then stores `newValue` (Combine's willSet order).
    @inlinable
    internal func set(_ newValue: Value) {
        objectWillChange.load()?.send()
        lazySubject.load()?.send(newValue)
        value = newValue
    }
}

extension Publisher where Failure == Never {
    /// Republishes elements received from a publisher, by assigning them to
    /// a property marked as a publisher.
    ///
    /// The subscription lives as long as the `@Published` property's
    /// storage: when the object that owns the property goes away, the
    /// subscription is cancelled. No `AnyCancellable` is returned, and the
    /// object is not retained (no cycle). Each value goes through the
    /// property's setter, so `objectWillChange` emits as for any change.
    ///
    /// ```swift
    /// class Clock {
    ///     @Published var lastUpdated: Date = .distantPast
    ///     init(ticks: some Publisher<Date, Never>) {
    ///         ticks.assign(to: &$lastUpdated)
    ///     }
    /// }
    /// ```
    public func assign(to published: inout Published<Output>.Publisher) {
        subscribe(PublishedAssignSubscriber(box: published.box))
    }
}

/// The subscriber `assign(to:)` attaches: it hands its subscription to the
/// property's storage, requests `.unlimited`, and sets each value through
/// the storage while it exists (weakly held: the storage owns the
/// subscription, which owns this subscriber).
internal final class PublishedAssignSubscriber<Value>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    typealias Input = Value
    typealias Failure = Never

    private weak var box: PublishedBox<Value>?
    let combineIdentifier = CombineIdentifier()

    init(box: PublishedBox<Value>) {
        self.box = box
    }

    func receive(subscription: any Subscription) {
        guard let box else {
            subscription.cancel()
            return
        }
        box.adopt(subscription)
        subscription.request(.unlimited)
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        box?.set(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}

    var description: String { "Assign" }
    var customMirror: Mirror { Mirror(self, children: []) }
    var playgroundDescription: Any { description }
}
