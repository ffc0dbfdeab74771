#!/usr/bin/env bash
# test-realclients.sh runs mcpship against MCP clients that others wrote:
# it installs the pinned clients (scripts/install-clients.sh), then runs the
# tests of the module in tests/realclients, which build the real binary.
#
#   bash scripts/test-realclients.sh [go test flags...]
#
# Extra arguments go to "go test" (for example -run TestCodex). A client
# that could not be installed because the npm registry is unreachable makes
# its tests skip, and the skips are repeated at the end. Exits non-zero
# when a test fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
say() { printf 'test-realclients: %s\n' "$*" >&2; }

sh "$root/scripts/install-clients.sh"
installed=$(date +%s)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The test module's own dependencies (go-sdk, mcp-go) come from the Go
# module proxy; without it nothing here can build, so skip loudly.
if ! (cd "$root/tests/realclients" && go mod download) >"$log" 2>&1; then
	cat "$log" >&2
	if grep -Eqi 'dial tcp|no such host|connection refused|connection reset|i/o timeout|network is unreachable|TLS handshake timeout|proxyconnect' "$log"; then
		say "SKIPPED: every real-client test: the Go module proxy ($(go env GOPROXY)) cannot be reached, so they cannot build"
		exit 0
	fi
	say "ERROR: go mod download in tests/realclients failed (output above)"
	exit 1
fi
say "go test in tests/realclients..."
status=0
(cd "$root/tests/realclients" && CI=true go test -count=1 -timeout 20m -v "$@" ./... </dev/null) 2>&1 |
	tee "$log" | grep -Ev '^=== (RUN|PAUSE|CONT)' || status=$?
end=$(date +%s)

if grep -q 'SKIPPED: ' "$log"; then
	say ""
	say "**********************************************************************"
	say "some real-client tests were SKIPPED:"
	grep -B1 'SKIPPED: ' "$log" | grep -E -- '--- SKIP|SKIPPED: ' | sed 's/^ */  /' >&2 || true
	say "**********************************************************************"
fi
printf 'test-realclients: top-level tests: PASS %s, FAIL %s, SKIP %s; install %ss, tests %ss, total %ss\n' \
	"$(grep -c '^--- PASS' "$log" || true)" "$(grep -c '^--- FAIL' "$log" || true)" "$(grep -c '^--- SKIP' "$log" || true)" \
	"$((installed - start))" "$((end - installed))" "$((end - start))" >&2
exit "$status"
