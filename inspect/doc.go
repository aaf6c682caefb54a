// Package inspect is gamewire's packet inspector: it turns bytes into an [Explanation], a tree
// of fields in which every field knows its byte and bit range, its wire type and its value,
// with the errors found at their offsets. Package inspect/web shows it as a web page, a
// coloured hex view beside a field tree.
//
// The explanations come from the same functions as the command line's explain verbs
// ([godot.DecodeMode.Explain], [gsf.Explain], [bitproto.DecodeFields]); this package only
// arranges their fields into a tree. Formats are kept in a small registry ([Register],
// [Formats]) so that a package that decodes a new format can add it.
//
// The page gets explanations as JSON: from the gamewire server (inspect/web.Handler), or, on the
// static site, from this package compiled to WebAssembly (the inspect/wasm command), which
// imports nothing for serving.
package inspect
