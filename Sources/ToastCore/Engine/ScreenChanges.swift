/// The screens that changed and those forgotten since the last checkpoint, by serial, so that
/// a checkpoint looks at them alone and not at every screen the table remembers: a consumer of
/// a Redis stream saves its state with every batch, thousands of times a run.
///
/// Kept from the first checkpoint on (`isKept`): a run that saves no state lists nothing. A
/// serial is listed as changed once between two checkpoints (when its screen's flag
/// `isChangedSinceSave` is set), and a serial is never given to another screen, so a listed
/// serial the table no longer remembers is one of the forgotten. A forgotten screen is listed
/// only if it has a row to delete (`Screen.hasSavedRow`).
struct ScreenChanges {
    var isKept = false
    var changed: [Int] = []
    var forgotten: [Int] = []
}
