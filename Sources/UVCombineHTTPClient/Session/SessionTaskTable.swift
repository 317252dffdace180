import UVCombineHTTPCore

/// The engine's running tasks by request ID: a slot array instead of a
/// dictionary, so that finding a task is an array index and an identity
/// check, with no hashing and no table growth on the request path
/// (issue 32).
///
/// The table names each task it takes in: the ID's low 32 bits are the
/// task's slot, the bits above them a number that grows with every
/// insertion (the generation). A freed slot is reused by the next task
/// (the most recently freed first, so sequential requests keep using one
/// slot); an ID whose task left matches no slot, because the task now in
/// it carries another generation. The pool sees the IDs as any others.
///
/// Threading: the engine's loop thread (a value the engine keeps with
/// `@exclusivity(unchecked)`).
///
/// ```swift
/// var tasks = SessionTaskTable()
/// let id = tasks.insert(task)         // task.requestID == id
/// tasks[id] === task                  // true
/// tasks.removeValue(forKey: id)       // task; tasks[id] == nil from now on
/// ```
package struct SessionTaskTable {
    /// The tasks by slot; nil for a free slot.
    private var slots: [SessionTask?] = []
    /// Free slots, the most recently freed last.
    private var free: [Int] = []
    /// The generation the next inserted task gets.
    private var generation = 1
    /// Tasks in the table.
    package private(set) var count = 0

    /// An empty table.
    package init() {}

    /// The ID's slot bits.
    private static let slotMask = (1 << 32) - 1

    /// Takes `task` in, names it (sets its `requestID`) and returns the
    /// name.
    package mutating func insert(_ task: SessionTask) -> ConnectionPoolStateMachine.RequestID {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = slots.count
            precondition(slot <= Self.slotMask, "SessionTaskTable: more than 2^32 tasks at once")
            slots.append(nil)
        }
        let id = ConnectionPoolStateMachine.RequestID(generation << 32 | slot)
        // Wraps after 2^31 insertions; a task would have to outlive that
        // many others in its slot to meet its own ID again.
        generation = generation == Int(Int32.max) ? 1 : generation + 1
        task.requestID = id
        slots[slot] = task
        count += 1
        return id
    }

    /// The task named `id`, or nil once it left (or for an ID the table
    /// never gave).
    package subscript(id: ConnectionPoolStateMachine.RequestID) -> SessionTask? {
        let slot = id.rawValue & Self.slotMask
        guard slot < slots.count, let task = slots[slot], task.requestID == id else { return nil }
        return task
    }

    /// Removes and returns the task named `id`; nil when it is not there
    /// (as `Dictionary.removeValue(forKey:)`).
    @discardableResult
    package mutating func removeValue(forKey id: ConnectionPoolStateMachine.RequestID) -> SessionTask? {
        let slot = id.rawValue & Self.slotMask
        guard slot < slots.count, let task = slots[slot], task.requestID == id else { return nil }
        slots[slot] = nil
        free.append(slot)
        count -= 1
        return task
    }

    /// Whether the table holds no task.
    package var isEmpty: Bool { count == 0 }

    /// The tasks, in slot order (off the request path: counts and
    /// shutdown).
    package var values: [SessionTask] { slots.compactMap { $0 } }
}
