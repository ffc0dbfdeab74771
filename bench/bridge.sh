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
root=$(cd .. && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

sh "$root/scripts/install-clients.sh" servers
servers=${MCPSHIP_CACHE:-$HOME/.cache/mcpship}/clients/servers/node_modules
if [ ! -x "$servers/.bin/mcp-server-everything" ]; then
	echo "bridge.sh: SKIPPED: server-everything and supergateway are not installed (see the line of install-clients.sh above)" >&2
	exit 0
fi

flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0
echo "building into $bin" >&2
go build "${flags[@]}" -o "$bin/mcpship-echo" ./servers/mcpship-echo
(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
go build -o "$bin/bridgebench" ./cmd/bridgebench

commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain -- mcp cmd internal go.mod go.sum)" ]; then commit="$commit+dirty"; fi
mkdir -p results
out="results/$(date -u +%Y%m%dT%H%M%SZ)-bridge"
"$bin/bridgebench" -mcpship "$bin/mcpship" -supergateway "$servers/supergateway/dist/index.js" \
	-child "go-echo=$bin/mcpship-echo" -child "everything=$servers/.bin/mcp-server-everything" \
	-commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
