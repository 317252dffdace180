import Testing
import UVCombineCore
import UVCombineTesting

/// `AnySubscriber`'s mirror as Combine's (OpenCombine's
/// `AnySubscriberTests.testReflection`, written against Combine): closures
/// reflect as the string "Anonymous AnySubscriber", a subject as the
/// subject subscriber with its children, a subscriber as itself.
@Suite("AnySubscriber's mirror as Combine")
struct AnySubscriberMirrorTests {
    @Test func closuresReflectAsAStringWithNoChildren() {
        let mirror = Mirror(reflecting: AnySubscriber<Int, Never>())
        #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(String.self))
        #expect(mirror.children.isEmpty)
        #expect(String(describing: AnySubscriber<Int, Never>()) == "Anonymous AnySubscriber")
    }

    @Test func aSubjectReflectsAsItsSubjectSubscriberWithChildren() {
        let subject = PassthroughSubject<Int, Never>()
        let mirror = Mirror(reflecting: AnySubscriber(subject))
        #expect(String(describing: mirror.subjectType).hasPrefix("SubjectSubscriber<PassthroughSubject<Int, Never>>"))
        #expect(mirror.children.map(\.label) == ["downstreamSubject", "upstreamSubscription", "subject"])
        #expect(mirror.children.first?.value as? PassthroughSubject<Int, Never> === subject)
    }

    @Test func aSubscriberReflectsAsItselfWithoutItsStoredProperties() {
        let tracker = TrackingSubscriber<Int, Never>()
        let mirror = Mirror(reflecting: AnySubscriber(tracker))
        #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(TrackingSubscriber<Int, Never>.self))
        #expect(mirror.children.isEmpty) // TrackingSubscriber has no custom mirror
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let sinkType = Mirror(reflecting: AnySubscriber(sink)).subjectType
        #expect(ObjectIdentifier(sinkType) == ObjectIdentifier(Subscribers.Sink<Int, Never>.self))
    }
}
