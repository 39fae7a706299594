import Testing
@testable import ToastCore
@testable import ToastPipeline
@testable import ToastCLI

/// The host alone, with a hand-driven environment: its state after each step.
@Suite struct HostUnitTests {
    final class Environment: HostEnvironment {
        var now: Microseconds = 0
        var timers: [(HostTimer, Microseconds)] = []
        var records: [String] = []

        func schedule(_ timer: HostTimer, at time: Microseconds) { timers.append((timer, time)) }

        func write(_ record: consuming Record) {
            switch record {
            case .present(let toast, _, _): records.append("present \(toast.id)")
            case .dismiss(let toast, _, let reason, _): records.append("dismiss \(toast.id) \(reason.rawValue)")
            case .drop(let toast, _, let drop): records.append("drop \(toast.id) \(drop.reason)")
            }
        }
    }

    /// Regression: the public initializer kept its environment `unowned(unsafe)`, so a host
    /// built on a temporary environment used it after it was freed.
    @Test func aHostKeepsTheEnvironmentItWasGivenAlive() {
        weak var kept: Environment?
        let host: Host = {
            let environment = Environment()
            kept = environment
            return Host(settings: QueueSettings(), environment: environment)
        }()
        #expect(kept != nil)
        host.admit(Toast(id: "a", message: "A"))
        #expect(kept?.records == ["present a"])
    }

    @Test func theLineTheScreenAndTheDelayedToastsAfterEachStep() {
        let environment = Environment()
        var settings = QueueSettings()
        settings.limit = 2
        let host = Host(settings: settings, environment: environment)
        host.admit(Toast(id: "a", message: "A"))
        host.admit(Toast(id: "b", message: "B", priority: 1))
        host.admit(Toast(id: "c", message: "C", priority: 2))
        host.admit(Toast(id: "d", message: "D", after: .seconds(5)))
        #expect(host.visibleIDs == ["a"])
        #expect(host.waitingIDs == ["c", "b"])
        #expect(host.delayedIDs == ["d"])
        #expect(environment.timers.map(\.1) == [3_000_000, 5_000_000])

        host.admit(Toast(id: "e", message: "E", priority: 1))   // the line holds 2: b is the oldest lowest
        #expect(host.waitingIDs == ["c", "e"])
        #expect(environment.records == ["present a", "drop b evicted"])

        environment.now = 3_000_000
        #expect(host.isLive(environment.timers[0].0))
        host.timerFired(environment.timers[0].0)
        #expect(host.visibleIDs == ["c"])
        #expect(!host.isLive(environment.timers[0].0))

        host.interact(.dismiss(target: "d"))
        #expect(host.delayedIDs == [])
        #expect(!host.isLive(.arrival(serial: 3)))
        host.removeAll()
        #expect(host.isEmpty)
        #expect(environment.records == ["present a", "drop b evicted", "dismiss a timeout", "present c",
                                        "drop d cancelled", "dismiss c host_removed", "drop e host_removed"])
    }

    /// The host reuses the slot of a toast that ended for the next one; a timer set for the
    /// toast that ended must not act on the one that took its slot.
    /// The host's slots (slot 0 kept in the host itself, the rest in arrays) and its line of
    /// visible toasts (the first kept in the line) against plain arrays, over thousands of
    /// random adds and removes: the same toasts in the same slots, the same line.
    @Test func slotsAndTheVisibleLineKeepWhatArraysKeep() {
        var random = InvariantTests.SeededGenerator(state: 5)
        var slots = HostSlots()
        var model: [Int: String] = [:]   // slot → toast id
        var line = SlotLine()
        var lineModel: [Int] = []
        for step in 0..<5_000 {
            if model.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
                let slot = slots.add(Toast(id: "t\(step)", message: "m"), HostedToast(serial: step, priority: step % 3))
                #expect(model[slot] == nil, "slot \(slot) given while taken")
                model[slot] = "t\(step)"
                line.append(slot)
                lineModel.append(slot)
            } else {
                let position = Int.random(in: 0..<lineModel.count, using: &random)
                let slot = line.remove(at: position)
                #expect(slot == lineModel.remove(at: position))
                #expect(slots.remove(slot).id == model.removeValue(forKey: slot))
            }
            #expect(Array(line) == lineModel)
            #expect(line.isEmpty == lineModel.isEmpty && line.count == lineModel.count)
            if step % 100 == 0 {
                let wrong = model.filter { slot, id in slots.toast(slot).id != id || slots[slot].serial != Int(id.dropFirst()) }
                #expect(wrong.isEmpty, "step \(step)")
            }
        }
        // Slot 0 and the others are reused once free, and a change to a slot's bookkeeping stays.
        for slot in model.keys.sorted() { _ = slots.remove(slot) }
        let first = slots.add(Toast(id: "a", message: "m"), HostedToast(serial: 1, priority: 0))
        let second = slots.add(Toast(id: "b", message: "m"), HostedToast(serial: 2, priority: 0))
        #expect(first == 0 && second > 0)
        slots[second].isPaused = true
        #expect(slots[second].isPaused && !slots[first].isPaused && slots.toast(second).id == "b")
    }

    @Test func aTimerOfAnEndedToastLeavesTheToastInItsSlotAlone() {
        let environment = Environment()
        let host = Host(settings: QueueSettings(), environment: environment)
        host.admit(Toast(id: "late", message: "Late", after: .seconds(1)))
        host.interact(.dismiss(target: "late"))                      // its slot is free again
        host.admit(Toast(id: "next", message: "Next", after: .seconds(2)))
        let (lateArrival, _) = environment.timers[0]
        #expect(!host.isLive(lateArrival))
        host.timerFired(lateArrival)
        #expect(host.delayedIDs == ["next"] && host.visibleIDs == [])

        environment.now = 2_000_000
        host.timerFired(environment.timers[1].0)
        #expect(host.visibleIDs == ["next"])
        let (nextTimeout, _) = environment.timers[2]
        host.interact(.tap(target: "next"))                          // its slot is free again
        host.admit(Toast(id: "after", message: "After"))
        #expect(!host.isLive(nextTimeout))
        host.timerFired(nextTimeout)
        #expect(host.visibleIDs == ["after"])
        #expect(environment.records == ["drop late cancelled", "present next", "dismiss next tap", "present after"])
    }
}
