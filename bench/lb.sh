#!/usr/bin/env bash
# Builds mcpship as the release does and runs cmd/lbdriver: calls per
# second through haproxy, run with examples/deploy/haproxy.cfg, with 1, 2
# and 4 replicas, next to one replica without it, in one run. Writes
# bench/results/<UTC timestamp>-lb.md and .json.
#
#   bash bench/lb.sh                  # 3 rounds of 2 s cells, about 3 minutes
#   bash bench/lb.sh -rounds 5        # any driver flag (go run ./cmd/lbdriver -h)
#
# It needs haproxy (scripts/install-tools.sh installs Debian's).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
if [ ! -x "$haproxy" ]; then
	echo "bench/lb.sh: haproxy is not installed; run scripts/install-tools.sh (it installs Debian's haproxy)" >&2
	exit 1
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0
echo "building into $bin" >&2
(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
go build -o "$bin/lbdriver" ./cmd/lbdriver

commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain -- mcp cmd internal go.mod go.sum examples/deploy)" ]; then commit="$commit+dirty"; fi
mkdir -p results
out="results/$(date -u +%Y%m%dT%H%M%SZ)-lb"
"$bin/lbdriver" -bindir "$bin" -haproxy "$haproxy" -config "$root/examples/deploy/haproxy.cfg" -commit "$commit" \
	-json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
