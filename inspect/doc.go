// Package inspect is gamewire's packet inspector: it turns bytes into an [Explanation], a tree
// of fields in which every field knows its byte and bit range, its wire type and its value,
// with the errors found at their offsets, and serves a web page that shows it as a coloured hex
// view beside a field tree.
//
// The explanations come from the same functions as the command line's explain verbs
// ([godot.DecOptions.Explain], [gsf.Explain], [bitproto.DecodeFields]); this package only
// arranges their fields into a tree. Formats are kept in a small registry ([Register],
// [Formats]) so that a package that decodes a new format can add it.
//
// [Handler] serves the page and its JSON API from assets embedded in the binary; [Export]
// writes the same page as a static site whose decoding runs in WebAssembly, built from this
// package by the local Go toolchain (see the inspect/wasm command).
package inspect
