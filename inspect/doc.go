// Package inspect is gamewire's packet inspector: it turns bytes into an [Explanation], a tree
// of fields in which every field knows its byte and bit range, its wire type and its value,
// with the errors found at their offsets. Package inspect/web shows it as a web page, a
// coloured hex view beside a field tree.
//
// The explanations come from the one explanation model (package explain) that the command
// line's explain verbs print: every format returns explain.Frames ([godot.DecodeMode.ExplainMessages],
// [gsf.ExplainFrames], [bitproto.ExplainFields], multiplayer.Explain) and this package turns
// their fields into a tree of nodes, reading the model's fields and never parsing text. Formats
// are kept in a small registry ([Register], [Formats]): a package that explains a new format in
// the model adds it with one registration whose Frames function returns its frames.
//
// The page gets explanations as JSON: from the gamewire server (inspect/web.Handler), or, on the
// static site, from this package compiled to WebAssembly (the inspect/wasm command), which
// imports nothing for serving.
package inspect
