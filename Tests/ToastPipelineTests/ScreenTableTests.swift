import Testing
@testable import ToastCore
import ToastPipelineTesting

/// The screens a run remembers: the list of screens to look at when the next event arrives
/// counts no references, so the table holds a screen it stops remembering while the screen is
/// on that list, and lets go of it once the list is looked at.
@Suite struct ScreenTableTests {
    private let pipeline = Pipeline(settings: PipelineSettings(), stages: [], output: RecordLog())

    private func screen(_ name: String, in table: ScreenTable) -> Screen {
        Screen(key: .text(name), serial: table.makeSerial(), pipeline: pipeline, stages: [], ownStages: [])
    }

    @Test func aScreenForgottenWhileOnTheListToLookAtLivesUntilTheLook() {
        let table = ScreenTable(settings: ScreenSettings(by: "user"), stages: [])
        var alice: Screen? = screen("alice", in: table)
        let (bob, carol) = (screen("bob", in: table), screen("carol", in: table))
        weak let forgotten = alice
        if let alice { table.add(alice) }   // (adding a screen puts it on the list)
        table.add(bob)
        if let alice { table.remove(alice) }
        // Carol takes alice's place in the table (as a new screen does when the limit ends one).
        table.add(carol)
        alice = nil
        #expect(forgotten != nil, "the table keeps it for the list")
        #expect(table.screen(.text("alice")) == nil && table.count == 2)
        var looked: [String] = []
        table.lookAtScreens(now: 0) { looked.append($0.key.label) }
        #expect(looked == ["[carol]", "[bob]", "[alice]"])
        #expect(forgotten == nil, "and lets go of it once the list is looked at")
        table.removeAll()
    }
}
