import Testing
import UVCombineCore
import UVCombineTesting

/// An ordered record of what the pipelines under test saw.
private final class Log {
    var lines: [String] = []
    func callAsFunction(_ line: String) { lines.append(line) }
}

private final class Weather: ObservableObject {
    @Published var temperature: Int
    @Published var sky = "clear"
    init(temperature: Int) { self.temperature = temperature }
}

private class Vehicle: ObservableObject {
    @Published var speed = 0
}

private final class Car: Vehicle {
    @Published var gear = 1
    var plate = "AB-123"
}

/// No `@Published` property: `objectWillChange` is still one stable publisher.
private final class ManualModel: ObservableObject {
    var count = 0 {
        willSet { objectWillChange.send() }
    }
}

/// A custom `objectWillChange` replaces the synthesised one.
private final class CustomModel: ObservableObject {
    let objectWillChange = PassthroughSubject<Int, Never>()
    @Published var value = 0
}

private final class AssignedCounter {
    @Published var value = 0
    init<P: Publisher>(source: P) where P.Output == Int, P.Failure == Never {
        source.assign(to: &$value)
    }
}

@Suite("@Published")
struct PublishedTests {
    @Test func projectedPublisherEmitsCurrentValueFirstThenEachChange() {
        let weather = Weather(temperature: 20)
        var seen: [Int] = []
        let c = weather.$temperature.sink { seen.append($0) }
        weather.temperature = 25
        weather.temperature = 30
        #expect(seen == [20, 25, 30])
        #expect(weather.temperature == 30)
        c.cancel()
        weather.temperature = 31
        #expect(seen == [20, 25, 30])
    }

    @Test func valuesArriveBeforeThePropertyChanges() {
        let weather = Weather(temperature: 1)
        let log = Log()
        let c = weather.$temperature.sink { [unowned weather] new in
            log("new \(new), property \(weather.temperature)")
        }
        weather.temperature = 2
        #expect(log.lines == ["new 1, property 1", "new 2, property 1"])
        c.cancel()
    }

    @Test func currentValueWaitsForDemandAndLatestWins() {
        let weather = Weather(temperature: 1)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        weather.$temperature.subscribe(tracker)
        weather.temperature = 2
        weather.temperature = 3
        #expect(tracker.values == [])
        tracker.request(.max(1))
        #expect(tracker.values == [3])
        weather.temperature = 4
        #expect(tracker.values == [3])
        tracker.request(.max(2))
        #expect(tracker.values == [3, 4])
        #expect(tracker.completion == nil)
        tracker.cancel()
    }

    @Test func eachAccessToTheProjectedValueSharesOneSubject() {
        let weather = Weather(temperature: 1)
        var a: [Int] = [], b: [Int] = []
        let c1 = weather.$temperature.sink { a.append($0) }
        weather.temperature = 2
        let c2 = weather.$temperature.sink { b.append($0) }
        weather.temperature = 3
        #expect(a == [1, 2, 3])
        #expect(b == [2, 3])
        c1.cancel(); c2.cancel()
    }

    @Test func initialValueSpellingAndMutationInPlace() {
        final class Box { @Published var items: [Int] = [] }
        let box = Box()
        var seen: [[Int]] = []
        let c = box.$items.sink { seen.append($0) }
        box.items.append(1)
        box.items += [2]
        #expect(seen == [[], [1], [1, 2]])
        _ = c
        var legacy = Published(initialValue: 5)
        var first: Int?
        _ = legacy.projectedValue.sink { first = $0 }
        #expect(first == 5)
    }

    @Test func pipelineFromProjectedValueDoesNotRetainTheObject() {
        weak var weakWeather: Weather?
        var seen: [Int] = []
        var c: AnyCancellable?
        do {
            let weather = Weather(temperature: 7)
            weakWeather = weather
            c = weather.$temperature.map { $0 * 2 }.sink { seen.append($0) }
            weather.temperature = 8
        }
        #expect(weakWeather == nil)
        #expect(seen == [14, 16])
        c?.cancel()
    }
}

@Suite("ObservableObject")
struct ObservableObjectTests {
    @Test func objectWillChangeFiresOncePerChangeBeforeTheNewValue() {
        let weather = Weather(temperature: 1)
        let log = Log()
        let c1 = weather.objectWillChange.sink { [unowned weather] in
            log("will change, property \(weather.temperature)")
        }
        let c2 = weather.$temperature.dropFirst().sink { log("new \($0)") }
        weather.temperature = 2
        weather.sky = "cloudy"
        #expect(log.lines == ["will change, property 1", "new 2", "will change, property 2"])
        c1.cancel(); c2.cancel()
    }

    @Test func objectWillChangeIsOnePublisherPerInstance() {
        let a = Weather(temperature: 1), b = Weather(temperature: 1)
        #expect(a.objectWillChange === a.objectWillChange)
        #expect(a.objectWillChange !== b.objectWillChange)
    }

    @Test func subclassPropertiesAndInheritedOnesBothNotify() {
        let car = Car()
        var count = 0
        let c = car.objectWillChange.sink { count += 1 }
        car.speed = 50
        car.gear = 2
        car.plate = "CD-456" // not @Published
        #expect(count == 2)
        #expect(car.objectWillChange === car.objectWillChange)
        c.cancel()
    }

    @Test func classWithoutPublishedPropertiesHasAStablePublisher() {
        let model = ManualModel()
        #expect(model.objectWillChange === model.objectWillChange)
        var count = 0
        let c = model.objectWillChange.sink { count += 1 }
        model.count = 1
        model.count = 2
        #expect(count == 2)
        c.cancel()
        weak var weakModel: ManualModel?
        do {
            let other = ManualModel()
            weakModel = other
            _ = other.objectWillChange
        }
        #expect(weakModel == nil)
    }

    @Test func customObjectWillChangeIsUsedAsDeclared() {
        let model = CustomModel()
        var seen: [Int] = []
        let c = model.objectWillChange.sink { seen.append($0) }
        model.value = 1 // the synthesised publisher is not involved
        model.objectWillChange.send(9)
        #expect(seen == [9])
        c.cancel()
    }

    @Test func objectWillChangeIgnoresDemandCountsOnceRequested() {
        let weather = Weather(temperature: 1)
        let tracker = TrackingSubscriber<Void, Never>(initialDemand: .none)
        weather.objectWillChange.subscribe(tracker)
        weather.temperature = 2
        #expect(tracker.values.count == 0)
        tracker.request(.max(1))
        weather.temperature = 3
        weather.temperature = 4
        #expect(tracker.values.count == 2)
        #expect(tracker.subscriptionNames == ["ObservableObjectPublisher"])
        tracker.cancel()
        weather.temperature = 5
        #expect(tracker.values.count == 2)
    }

    @Test func observingDoesNotRetainTheObject() {
        weak var weakWeather: Weather?
        var count = 0
        var c: AnyCancellable?
        do {
            let weather = Weather(temperature: 1)
            weakWeather = weather
            c = weather.objectWillChange.sink { count += 1 }
            weather.temperature = 2
        }
        #expect(weakWeather == nil)
        #expect(count == 1)
        c?.cancel()
    }
}

@Suite("assign(to: &$property)")
struct PublishedAssignTests {
    @Test func assignsThroughThePropertyAndNotifies() {
        final class Model: ObservableObject {
            @Published var value = 0
        }
        let model = Model()
        let source = PassthroughSubject<Int, Never>()
        let log = Log()
        let c = model.objectWillChange.sink { [unowned model] in log("will change from \(model.value)") }
        source.assign(to: &model.$value)
        source.send(1)
        source.send(2)
        #expect(model.value == 2)
        #expect(log.lines == ["will change from 0", "will change from 1"])
        c.cancel()
    }

    @Test func subscriptionIsReleasedWithTheObject() {
        let source = PassthroughSubject<Int, Never>()
        var cancelled = 0
        weak var weakAssignedCounter: AssignedCounter?
        do {
            let counter = AssignedCounter(source: source.handleEvents(receiveCancel: { cancelled += 1 }))
            weakAssignedCounter = counter
            source.send(3)
            #expect(counter.value == 3)
            #expect(cancelled == 0)
        }
        #expect(weakAssignedCounter == nil)
        #expect(cancelled == 1)
        source.send(4) // nobody is left to receive it
    }

    @Test func completionOfTheSourceLeavesTheValue() {
        let counter = AssignedCounter(source: [1, 2, 3].publisher)
        #expect(counter.value == 3)
    }
}

/// A change costs no allocation: one `send()` to `objectWillChange`, one to
/// the property's subject (see also the `Published.*` benchmarks).
@Suite("@Published allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct PublishedAllocationTests {
    @Test func changeToEightSinksAndObjectWillChangeAllocatesNothing() {
        let weather = Weather(temperature: 0)
        var total = 0
        var bag: [AnyCancellable] = []
        for _ in 0..<8 { weather.$temperature.sink { total &+= $0 }.store(in: &bag) }
        weather.objectWillChange.sink { total &+= 1 }.store(in: &bag)
        for i in 0..<1_000 { weather.temperature = i } // warm up
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { weather.temperature = i }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        bag.removeAll()
    }
}
