#!/usr/bin/env bash
# Runs every fuzz target of the module in turn, each for DURATION (a Go duration such as 30s or
# 10m, or a count of executions such as 100000x), and reports which ones failed.
#
#   scripts/fuzz.sh DURATION [REGEXP]
#
# REGEXP, if given, selects the targets by package path or name ("godot", "FuzzDecode$").
# FUZZ_PARALLEL sets the number of fuzzing workers (go test -parallel; default GOMAXPROCS).
# The targets are found with `go test -list`, so that a new one is fuzzed without editing this
# script. An input that fails a target is written by go test to <package>/testdata/fuzz/<target>/:
# commit it with the fix, so that `go test ./...` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 DURATION [REGEXP]" >&2
	exit 2
fi
duration=$1
filter=${2:-}
parallel=()
if [ -n "${FUZZ_PARALLEL:-}" ]; then
	parallel=(-parallel "$FUZZ_PARALLEL")
fi

targets=()
for pkg in $(go list ./...); do
	# go test -list prints the matching names, then "ok <package> <time>".
	for name in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		if [ -z "$filter" ] || [[ "$pkg $name" =~ $filter ]]; then
			targets+=("$pkg $name")
		fi
	done
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz targets match ${filter:-anything}" >&2
	exit 1
fi

echo "fuzzing ${#targets[@]} targets for $duration each"
failed=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "=== $pkg $name"
	if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$duration" "${parallel[@]}"; then
		failed+=("$pkg $name")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED (inputs are in each package's testdata/fuzz/<target>/):"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "all ${#targets[@]} targets passed"
