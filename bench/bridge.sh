#!/usr/bin/env bash
# Measures what serving a stdio MCP server over HTTP adds to a call, beside
# supergateway in the same run: builds mcpship and the Go echo server
# (servers/mcpship-echo, a stdio child that answers in microseconds), takes
# server-everything and supergateway from the "servers" group of
# scripts/install-clients.sh (installing it when missing), runs
# cmd/bridgebench, and writes bench/results/<UTC timestamp>-bridge.md and
# .json.
#
#   bash bench/bridge.sh                 # 3 rounds of 2 s cells, about 15 minutes
#   bash bench/bridge.sh -rounds 5       # any driver flag (go run ./cmd/bridgebench -h)
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh

sh "$root/scripts/install-clients.sh" servers
servers=${MCPSHIP_CACHE:-$HOME/.cache/mcpship}/clients/servers/node_modules
if [ ! -x "$servers/.bin/mcp-server-everything" ]; then
	echo "bridge.sh: SKIPPED: server-everything and supergateway are not installed (see the line of install-clients.sh above)" >&2
	exit 0
fi

echo "building into $bin" >&2
build_release servers/mcpship-echo
build_mcpship
build_driver bridgebench

commit=$(commit_of mcp cmd internal go.mod go.sum)
out=$(results_out -bridge)
"$bin/bridgebench" -mcpship "$bin/mcpship" -supergateway "$servers/supergateway/dist/index.js" \
	-child "go-echo=$bin/mcpship-echo" -child "everything=$servers/.bin/mcp-server-everything" \
	-commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
