import ToastCore

/// The rules' current toast as plain values in C (`clua_toastview`, read in
/// `CLuaBridge/view.c`), so that a rule's first read of a field is answered by a C `__index`
/// (`clua_ruleindex`) instead of a metamethod through the trampoline into the proxy's Swift
/// side: the name looked up by its address and the value pushed, far less than the call
/// through Swift.
///
/// The view holds the fields that the rules read (they read the same names of most toasts),
/// copied when the rules' table starts showing a toast; extra fields as the text of their JSON
/// object, searched in C.
/// Whatever the view does not hold (a field rarely read, a text too long for it,
/// extra fields that are not stored text, a value that is not a plain string or a boolean)
/// C hands to the Swift reader. Which fields the view holds is looked at again every few
/// hundred toasts, from the reads each side answered: a field goes in when it was read for
/// one toast in sixteen, since copying a field into the view costs far less than one read
/// answered through Swift instead of the view (docs/performance.md has the figures).
///
/// The view answers only at the generation it was filled at (`LuaState.tableChanged` says
/// when that moves), and it is filled again when the rules' table is set up for the next rule.
///
/// Safe to use: the view holds copies of the toast's values in the bridge's own C buffers,
/// never a pointer into the toast, so it cannot outlive what it shows.
extension LuaState {
    /// Copies what the rules read of `proxy`'s toast into the view, at the current generation.
    /// (A written table is not described: the write moved the generation past any fill.)
    func fillRuleView(_ proxy: ToastProxy) {
        guard shortcuts.isOn, proxy.isUnwritten, Self.viewNamesEveryField else { return }
        shortcuts.view.fills += 1
        if shortcuts.view.fills >= shortcuts.view.fillsBeforeReview { reviewRuleView() }
        beginView()
        let toast = proxy.toast
        for (field, position) in shortcuts.view.fields {
            switch field {
            case .message: toast.withMessageBytes { setViewText(position, $0) }
            case .subtitle: if toast.withSubtitleBytes({ setViewText(position, $0) }) == nil { setViewNil(position) }
            case .role: setViewText(position, toast.role)
            case .source: setViewText(position, toast.source)
            case .id: setViewText(position, toast.id)
            case .priority:
                setView(position, .integer(Int64(toast.effectivePriority(in: proxy.roles))))
            default:
                toast.visitValue(of: field) { value in
                    switch value {
                    case .absent: setViewNil(position)
                    case .text(let bytes): setViewText(position, bytes)
                    case .time(let time): setView(position, .number(StreamTime.seconds(time)))
                    case .integer(let integer): setView(position, .integer(Int64(integer)))
                    case .flag(let flag): setView(position, .boolean(flag))
                    }
                }
            }
        }
        // A made toast's `made_by` is not an extra field: C asks Swift for every other name.
        guard shortcuts.view.holdsExtra, toast.madeBy == nil else { return }
        let stored: Void? = toast.withExtraText { text in
            setViewExtra(text)
        }
        if stored == nil && toast.extra.isEmpty {
            setViewExtra(nil)
        }
    }

    /// Whether the view has a place for every field: C takes a name it does not know as an
    /// extra field's, so a field without a place would be searched for among the extra fields.
    static let viewNamesEveryField = ToastField.allCases.count <= LuaState.viewFieldCapacity

    private func setViewText(_ position: Int, _ text: String?) {
        guard let text else { return setViewNil(position) }
        text.withUTF8Bytes { setViewText(position, $0) }
    }

    private func setViewNil(_ position: Int) {
        setView(position, .nothing)
    }


    /// Whether the view answers for the rules' table now: it was filled at this generation.
    var ruleViewIsCurrent: Bool { context.pointee.view.generation == context.pointee.generation }

    /// A read of the rules' table that the Swift reader answered, of the name at `key` (a Lua
    /// string, by address): counted for the next review.
    func noteRuleRead(key: UnsafeRawPointer) {
        guard let position = fieldPosition(forKey: key) else {
            shortcuts.view.extraReadsAnswered += 1
            return
        }
        shortcuts.view.readsAnswered[position] += 1
    }

    /// The view holds from now on what the rules read for at least one in sixteen toasts since
    /// the last review, counting what both sides answered.
    private func reviewRuleView() {
        let fills = shortcuts.view.fills
        shortcuts.view.fields.removeAll(keepingCapacity: true)
        for (position, field) in ToastField.allCases.enumerated() {
            let reads = takeViewReads(position) + shortcuts.view.readsAnswered[position]
            if reads * 16 >= fills { shortcuts.view.fields.append((field, position)) }
            shortcuts.view.readsAnswered[position] = 0
        }
        let extraReads = takeViewReads(-1) + shortcuts.view.extraReadsAnswered
        shortcuts.view.holdsExtra = extraReads * 16 >= fills
        shortcuts.view.extraReadsAnswered = 0
        shortcuts.view.fills = 0
        shortcuts.view.fillsBeforeReview = RuleViewSelection.fillsBetweenReviews
    }

    /// Whether `shortcuts.values` holds anything.
    var ruleValuesFilled: Bool {
        get { context.pointee.valuesfilled != 0 }
        set { context.pointee.valuesfilled = newValue ? 1 : 0 }
    }
}

/// Which fields the C view of the rules' toast holds, and the reads counted to decide it
/// again (see `LuaState.fillRuleView`).
struct RuleViewSelection {
    /// The fields held, with their positions in `ToastField.allCases`.
    var fields: [(field: ToastField, position: Int)] = []
    /// Whether extra fields are held.
    var holdsExtra = false
    /// Reads the Swift reader answered since the last review, by field position, and of
    /// extra fields.
    var readsAnswered = [Int](repeating: 0, count: ToastField.allCases.count)
    var extraReadsAnswered = 0
    /// Views filled since the last review, and how many make the next one.
    var fills = 0
    var fillsBeforeReview = 16

    /// Reviews after the first come this many fills apart.
    static let fillsBetweenReviews = 256
}
