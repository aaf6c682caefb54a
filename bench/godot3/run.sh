#!/usr/bin/env bash
# Times Godot 3.2.3's own var2bytes/bytes2var on gamewire's benchmark workloads (bench.gd).
# Needs godot3-server (Debian: apt-get install -y godot3-server). Usage: bench/godot3/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v godot3-server >/dev/null || { echo "godot3-server is not installed (apt-get install -y godot3-server)" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
printf 'config_version=4\n\n[application]\n\nconfig/name="gamewire-bench"\n' >"$dir/project.godot"
cp "$here/bench.gd" "$dir/bench.gd"
# The engine sets up its log file before it creates user://: create user:// first.
mkdir -p "$dir/.home/data/godot/app_userdata/gamewire-bench"
# Godot 3 reads LANG itself and wants a language code; HOME keeps its user:// and logs in $dir.
# A script error in _init() would hang the engine: bound the run.
LANG=en_US.UTF-8 LC_ALL=C.UTF-8 HOME="$dir/.home" XDG_DATA_HOME="$dir/.home/data" \
	XDG_CONFIG_HOME="$dir/.home/config" XDG_CACHE_HOME="$dir/.home/cache" \
	timeout --kill-after=5 600 godot3-server --no-window --path "$dir" -s bench.gd 2>"$dir/stderr" | tail -n +3
if [ -s "$dir/stderr" ]; then
	echo "engine stderr:" >&2
	cat "$dir/stderr" >&2
fi
