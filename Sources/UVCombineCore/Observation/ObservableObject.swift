import Synchronization

/// A type of object with a publisher that emits before the object has
/// changed.
///
/// By default an `ObservableObject` synthesises an `objectWillChange`
/// publisher that emits before any of its `@Published` properties changes,
/// including those declared in superclasses. A class with no `@Published`
/// property still gets one stable publisher per instance, which its own
/// code can `send()` from a `willSet`.
///
/// Threading: `objectWillChange` may be read from any thread; it emits on
/// the thread that changes the property.
///
/// ```swift
/// class Contact: ObservableObject {
///     @Published var name: String
///     @Published var age: Int
///     init(name: String, age: Int) { self.name = name; self.age = age }
///     func haveBirthday() -> Int { age += 1; return age }
/// }
///
/// let john = Contact(name: "John Appleseed", age: 24)
/// let c = john.objectWillChange.sink { _ in print("\(john.age) will change") }
/// print(john.haveBirthday())
/// // Prints: "24 will change"
/// // Prints: "25"
/// ```
public protocol ObservableObject: AnyObject {
    /// The type of publisher that emits before the object has changed.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
        where ObjectWillChangePublisher.Failure == Never

    /// A publisher that emits before the object has changed.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that emits before any `@Published` property of this
    /// object changes (the synthesised default).
    ///
    /// The same publisher is returned for the life of the object. For a
    /// class with `@Published` properties it lives in their storage and
    /// each change costs one `send()`; the first read finds that storage
    /// with a reflection walk and installs the publisher there, so later
    /// changes never look anything up. A class without `@Published`
    /// properties keeps its publisher in a side table keyed by the
    /// instance (entries of dead objects are purged as the table grows).
    /// Any thread.
    ///
    /// ```swift
    /// let c = model.objectWillChange.sink { print("will change") }
    /// ```
    public var objectWillChange: ObservableObjectPublisher {
        ObservableObjectRegistry.publisher(for: self)
    }
}

/// Where the synthesised `objectWillChange` publishers live.
internal enum ObservableObjectRegistry {
    /// A side-table entry for an object without `@Published` properties.
    internal struct Entry {
        weak var object: AnyObject?
        let publisher: ObservableObjectPublisher
    }

    internal struct State {
        /// Per class: does it (or a superclass) declare `@Published` properties?
        var hasPublished: [ObjectIdentifier: Bool] = [:]
        var sideTable: [ObjectIdentifier: Entry] = [:]
        /// The side-table size at which dead entries are next purged.
        var purgeAt = 64
    }

    internal static let state = Locked(State())

    internal static func publisher(for object: AnyObject) -> ObservableObjectPublisher {
        let type = ObjectIdentifier(Swift.type(of: object))
        let known = state.withLock { $0.hasPublished[type] }
        if known != false {
            let boxes = publishedBoxes(of: object)
            if known == nil {
                state.withLock { $0.hasPublished[type] = !boxes.isEmpty }
            }
            if let first = boxes.first {
                if let installed = first.objectWillChange.load() { return installed }
                // Every installer goes through the boxes in the same order,
                // so the first box decides which publisher wins a race.
                let winner = first.objectWillChange.storeIfNil(ObservableObjectPublisher())
                for box in boxes.dropFirst() { _ = box.objectWillChange.storeIfNil(winner) }
                return winner
            }
        }
        return sideTablePublisher(for: object)
    }

    /// The storage of every `@Published` property of `object`, its
    /// superclasses' included, in declaration order.
    internal static func publishedBoxes(of object: AnyObject) -> [PublishedBoxBase] {
        var boxes: [PublishedBoxBase] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let field = child.value as? any PublishedField { boxes.append(field.publishedBox) }
            }
            mirror = current.superclassMirror
        }
        return boxes
    }

    internal static func sideTablePublisher(for object: AnyObject) -> ObservableObjectPublisher {
        let id = ObjectIdentifier(object)
        let existing = state.withLock { s -> ObservableObjectPublisher? in
            guard let entry = s.sideTable[id], entry.object === object else { return nil }
            return entry.publisher
        }
        if let existing { return existing }
        // Created outside the lock, and the purged entries are released
        // outside it too: a publisher's deinit releases its subscribers.
        let fresh = ObservableObjectPublisher()
        var purged: [Entry] = []
        let result = state.withLock { s -> ObservableObjectPublisher in
            if let entry = s.sideTable[id], entry.object === object { return entry.publisher }
            s.sideTable[id] = Entry(object: object, publisher: fresh)
            if s.sideTable.count >= s.purgeAt {
                purged = s.sideTable.values.filter { $0.object == nil }
                s.sideTable = s.sideTable.filter { $0.value.object != nil }
                s.purgeAt = Swift.max(64, s.sideTable.count * 2)
            }
            return fresh
        }
        purged.removeAll()
        return result
    }
}

/// A publisher that publishes a change to an observable object: the type of
/// the synthesised ``ObservableObject/objectWillChange``.
///
/// It never completes. A subscriber receives every `send()` once it has
/// requested anything at all (demand is not counted, as in Combine).
/// Threading: `send()` from any thread; deliveries are serialised and a
/// subscriber's `cancel()` waits for a delivery in flight on another
/// thread (see ``PassthroughSubject``). Each `send()` takes one lock and
/// allocates nothing.
///
/// ```swift
/// let willChange = ObservableObjectPublisher()
/// let c = willChange.sink { print("changing") }
/// willChange.send() // Prints: "changing"
/// ```
public final class ObservableObjectPublisher: Publisher, ConduitParent, CustomStringConvertible {
    /// It sends no value, only the event.
    public typealias Output = Void
    /// It never fails.
    public typealias Failure = Never

    @usableFromInline internal let engine = SubjectEngine<Void, Never>(latest: nil)

    /// Creates an observable object publisher.
    ///
    /// ```swift
    /// let objectWillChange = ObservableObjectPublisher()
    /// ```
    public init() {}

    /// Attaches `subscriber`; it receives every later `send()` once it has
    /// requested.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        engine.subscribe(subscriber, parent: self, name: "ObservableObjectPublisher", replaysLatest: false)
    }

    /// Tells every subscriber that the object is about to change.
    @inlinable
    public func send() {
        engine.send((), replaysLatest: false)
    }

    // Any request makes the demand unlimited: Combine's publisher does not
    // count demand.
    @inlinable
    internal func conduitRequested(_ conduit: ConduitBase<Void, Never>, _ demand: Subscribers.Demand) {
        engine.request(.unlimited, for: conduit)
    }

    @inlinable
    internal func conduitCancelled(_ conduit: ConduitBase<Void, Never>) {
        engine.cancel(conduit)
    }

    /// `ObservableObjectPublisher`.
    public var description: String { "ObservableObjectPublisher" }
}

// Every piece of mutable state is behind the engine's gate.
extension ObservableObjectPublisher: @unchecked Sendable {}
