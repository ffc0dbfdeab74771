#!/usr/bin/env bash
# Builds the Streamable HTTP benchmark servers and mcpship with the same
# flags into a temporary directory, runs cmd/httpdriver, and writes
# bench/results/<UTC timestamp>-http.md and .json.
#
#   bash bench/http.sh                 # 3 rounds of 2 s cells, about 5 minutes
#   bash bench/http.sh -rounds 5       # any driver flag (go run ./cmd/httpdriver -h)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0
echo "building into $bin" >&2
go build "${flags[@]}" -o "$bin/mcpship-echo" ./servers/mcpship-echo
go build "${flags[@]}" -o "$bin/gosdk" ./servers/gosdk
go build "${flags[@]}" -o "$bin/mcpgo" ./servers/mcpgo
(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
go build -o "$bin/httpdriver" ./cmd/httpdriver

commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain -- mcp cmd internal go.mod go.sum)" ]; then commit="$commit+dirty"; fi
mkdir -p results
out="results/$(date -u +%Y%m%dT%H%M%SZ)-http"
"$bin/httpdriver" -bindir "$bin" -commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
