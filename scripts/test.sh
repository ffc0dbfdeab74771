#!/usr/bin/env bash
# test.sh runs every test of mcpship: static checks, unit, golden-transcript
# and end-to-end tests against the built binary, the distribution tests and
# the real-client suite. CI runs it (.ci/run).
#
#   bash scripts/test.sh
#
# It needs Go 1.25 or later and, for the real-client tests and the wrap
# tests' prettier and ESLint, Node.js 20 or later with npm (CONTRIBUTING.md
# lists everything). It installs pinned tools and clients into
# $MCPSHIP_CACHE (default ~/.cache/mcpship). A tool or client group it cannot
# install (no root for apt-get, a registry out of reach, no npm, an npm
# install that fails) gets one "SKIPPED:" line and the tests that need it
# skip, as does a test that cannot run here (one that needs root); the
# summary at the end says what ran and what was skipped, and why. With
# CI=true nothing may be skipped: a tool that is missing fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

ci=false
[ "${CI:-}" = true ] && ci=true

logs=$(mktemp -d)
coverage_file=${MCPSHIP_COVERAGE_FILE:-$PWD/coverage.txt}
rm -f "$coverage_file"
began=$(date +%s)
ran=()     # "step (seconds)"
skipped=() # "what: why"
current=

# step NAME [WHAT] starts the step NAME; the summary lists it with its time.
step() {
	finish_step
	current=$1
	step_began=$(date +%s)
	printf '\n==> %s\n' "$1${2:+: $2}"
}

# not_run TOOL marks the current step as not run: TOOL is missing, and was
# reported skipped when the tools were installed.
not_run() {
	echo "$1 is not installed (see SKIPPED above): not run"
	current="$current: not run, no $1"
}

finish_step() {
	if [ -n "$current" ]; then
		ran+=("$current ($(($(date +%s) - step_began))s)")
	fi
	current=
}

# collect_skips FILE adds each "SKIPPED: what: why" line of FILE to skipped.
collect_skips() {
	local line
	while IFS= read -r line; do
		skipped+=("${line#*SKIPPED: }")
	done < <(grep -o 'SKIPPED: .*' "$1" | sort -u || true)
}

summary() {
	local status=$? s
	trap - EXIT
	[ "$status" -eq 0 ] && finish_step
	printf '\n==> summary: %s in %ss\n' "$([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status) in step: $current")" "$(($(date +%s) - began))"
	printf 'ran:\n'
	for s in "${ran[@]}"; do printf '  %s\n' "$s"; done
	if [ -s "$coverage_file" ]; then
		printf 'statement coverage per package, unit and end-to-end tests together (%s):\n' "$coverage_file"
		cat "$coverage_file"
	fi
	if [ ${#skipped[@]} -eq 0 ]; then
		printf 'skipped: nothing\n'
	else
		printf 'skipped (the tests that need these did not run):\n'
		for s in "${skipped[@]}"; do printf '  %s\n' "$s"; done
		if [ "$ci" = true ] && [ "$status" -eq 0 ]; then
			printf 'CI=true: every tool and client is required, so the skips above fail the run\n'
			status=1
		fi
	fi
	rm -rf "$logs"
	exit "$status"
}
trap summary EXIT

# check_deadcode fails when deadcode finds functions that nothing reaches,
# neither a program nor a test, on each of Linux, macOS and Windows (what
# one of them needs is alive). It then lists, without failing, what only
# tests reach: mcp, the adapters, registercmd and manifest are libraries, so
# their exported API (and what it calls) is alive though no main package of
# this module calls it; a test-only helper in that list belongs in a
# _test.go file.
check_deadcode() {
	local flags goos
	for flags in -test ""; do
		for goos in linux darwin windows; do
			# shellcheck disable=SC2086 # $flags is empty or one flag
			GOOS=$goos deadcode $flags ./... >"$logs/dead.$goos" &
		done
		wait_all
		for goos in linux darwin windows; do sort -o "$logs/dead.$goos" "$logs/dead.$goos"; done
		# An Example without an Output comment is compiled, not run: it is
		# documentation, not dead.
		comm -12 "$logs/dead.linux" "$logs/dead.darwin" | comm -12 - "$logs/dead.windows" |
			grep -v 'unreachable func: Example' >"$logs/dead$flags" || true
	done
	if [ -s "$logs/dead" ]; then
		echo "reached only by tests (library API, or a test helper to move into a _test.go file):"
		comm -23 "$logs/dead" "$logs/dead-test" | sed 's/^/  /'
	fi
	if [ -s "$logs/dead-test" ]; then
		echo "deadcode: these functions are reached by no program and no test; delete them:"
		sed 's/^/  /' "$logs/dead-test"
		return 1
	fi
}

# wait_all waits for the background jobs and fails when one failed.
wait_all() {
	local pid status=0
	for pid in $(jobs -p); do
		wait "$pid" || status=1
	done
	return "$status"
}

# coverage_table prints the statement coverage of each package of the module
# (not the test helpers under tests/) from the coverage data in the
# directories $1 (comma-separated), and the packages below 80%.
coverage_table() {
	go tool covdata percent -i="$1" |
		awk '$1 !~ /\/tests(\/|$)/ {
			pkg = $1; sub("^github.com/mcpship/mcpship/?", "", pkg); if (pkg == "") pkg = "."
			pct = $3; sub("%", "", pct)
			printf "  %-28s %6.1f%%%s\n", pkg, pct, (pct + 0 < 80 ? "   below 80%" : "")
		}' | sort
}

step "install tools" "goreleaser, actionlint, staticcheck, deadcode, shellcheck, dash, busybox, podman, haproxy (cached)"
sh scripts/install-tools.sh 2>&1 | tee "$logs/tools"
collect_skips "$logs/tools"
if [ "$ci" = true ] || [ ${#skipped[@]} -eq 0 ]; then
	export MCPSHIP_DIST_TOOLS=require # a tool that went missing must fail the run, not skip
fi
export PATH="${MCPSHIP_CACHE:-$HOME/.cache/mcpship}/tools:$PATH"

step "install wrap test programs" "28 Debian packages (gdu, yamllint, ripgrep, git, ...), yq, swag, urfave/cli's builder, prettier, ESLint (cached)"
sh scripts/install-wrapfixtures.sh 2>&1 | tee "$logs/wrapfixtures"
collect_skips "$logs/wrapfixtures"
if [ "$ci" = true ] || ! grep -q 'SKIPPED: ' "$logs/wrapfixtures"; then
	export MCPSHIP_WRAP_PROGRAMS=require # tests/wrap_test.go fails, not skips, on a missing program
fi

step "go vet" "the main module, and the benchmark module that builds on it; the main module for macOS and Windows"
go vet ./...
(cd bench && go vet ./...)
GOOS=darwin go vet ./...
GOOS=windows go vet ./...

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "these files need gofmt -w:"
	echo "$unformatted"
	exit 1
fi

step "staticcheck"
if command -v staticcheck >/dev/null 2>&1; then
	staticcheck ./...
	(cd bench && staticcheck ./...)
else
	not_run staticcheck
fi

step "deadcode" "functions that nothing reaches"
if command -v deadcode >/dev/null 2>&1; then
	check_deadcode
else
	not_run deadcode
fi

step "go test" "unit, golden transcripts, fuzz seed corpora, end-to-end, distribution; with coverage"
# The unit tests count for every package they reach (-coverpkg), and the
# end-to-end tests in tests/ build mcpship with -cover and collect what the
# binary runs in $MCPSHIP_COVERDIR. The end-to-end packages take over go
# test's default 10 minutes on a loaded 2-core machine, hence -timeout. A test that skips loudly (one that
# cannot run here, such as one that needs root) appends its "SKIPPED:" line
# to $MCPSHIP_SKIPPED_LOG, which go test prints only with -v.
cover=$logs/cover
mkdir -p "$cover/unit" "$cover/e2e"
: >"$logs/goskips"
MCPSHIP_SKIPPED_LOG=$logs/goskips MCPSHIP_COVERDIR=$cover/e2e go test -count=1 -timeout 45m -coverpkg=./... ./... -args -test.gocoverdir="$cover/unit"
collect_skips "$logs/goskips"
coverage_table "$cover/unit,$cover/e2e" >"$coverage_file" # printed by summary

step "go test -race" "protocol core"
if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "$(go env CC)" >/dev/null 2>&1; then
	go test -count=1 -race ./mcp/
else
	echo "SKIPPED: go test -race: the race detector needs cgo and a C compiler ($(go env CC)); install gcc" | tee "$logs/race"
	collect_skips "$logs/race"
fi

step "real clients" "Claude Code, Gemini CLI, Codex, Inspector, TypeScript SDK, go-sdk, mcp-go, conformance"
bash scripts/test-realclients.sh 2>&1 | tee "$logs/realclients"
collect_skips "$logs/realclients"

