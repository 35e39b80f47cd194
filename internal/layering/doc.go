// Package layering has no code: its test keeps zerokit's dependencies
// pointing one way. Every top-level directory of the module has a rank,
// from the rules and the embedded files at the bottom to the command line
// at the top, and a package may import its own tree or a lower-ranked one
// only (docs/architecture.md draws the graph). Tests are free to import
// upward (agent/neural's tests play matches with package arena).
package layering
