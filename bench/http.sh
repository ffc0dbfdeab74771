#!/usr/bin/env bash
# Builds the Streamable HTTP benchmark servers and mcpship with the same
# flags into a temporary directory, runs cmd/httpdriver, and writes
# bench/results/<UTC timestamp>-http.md and .json.
#
#   bash bench/http.sh                 # 3 rounds of 2 s cells, about 5 minutes
#   bash bench/http.sh -rounds 5       # any driver flag (go run ./cmd/httpdriver -h)
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh

echo "building into $bin" >&2
build_release servers/mcpship-echo servers/gosdk servers/mcpgo
build_mcpship
build_driver httpdriver

commit=$(commit_of mcp cmd internal go.mod go.sum)
out=$(results_out -http)
"$bin/httpdriver" -bindir "$bin" -commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
