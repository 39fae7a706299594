/// Calls the functions of `ScriptFunction`s: the scripts' runtime, for the stages that read
/// settings holding them.
package protocol ScriptFunctionRunner: AnyObject {
    /// Calls `function` with `toast`, within the stage's `context` (its clock, its input line);
    /// the text it returns, or nil when the call failed or returned no string (the runtime
    /// reports why).
    func text(calling function: ScriptFunction, with toast: Toast, context: StageContext) -> String?

    /// Calls `function` with the list of `toasts` (a digest's `message` function): `base` with
    /// the message it returned, or with the fields of the table it returned; nil when the
    /// call failed or returned neither (the runtime reports why).
    func digest(calling function: ScriptFunction, with toasts: [Toast], base: Toast, context: StageContext) -> Toast?

    /// Calls a stage's `when` or `spare` function (`setting` names which) with `toast`: whether
    /// it matches; nil when the call failed or returned something else than a boolean or nil
    /// (the runtime reports it as a script error of the stage named `stage`).
    func matches(calling function: ScriptFunction, with toast: Toast, stage: String, setting: String,
                 context: StageContext) -> Bool?

    /// Why the last call above that gave nil failed (the message it reported), once: a stage
    /// that falls back says so in its trace.
    func takeFailure() -> String?
}

extension ScriptFunctionRunner {
    package func digest(calling function: ScriptFunction, with toasts: [Toast], base: Toast, context: StageContext) -> Toast? {
        nil
    }

    package func matches(calling function: ScriptFunction, with toast: Toast, stage: String, setting: String,
                         context: StageContext) -> Bool? {
        nil
    }

    package func takeFailure() -> String? { nil }
}
