/// A name as messages quote it: `"name"`, so an empty or spaced name is still visible.
package func quoted(_ text: String) -> String {
    "\"\(text)\""
}
