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
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
if [ ! -x "$haproxy" ]; then
	echo "bench/lb.sh: haproxy is not installed; run scripts/install-tools.sh (it installs Debian's haproxy)" >&2
	exit 1
fi
. ./lib.sh

echo "building into $bin" >&2
build_mcpship
build_driver lbdriver

commit=$(commit_of mcp cmd internal go.mod go.sum examples/deploy)
out=$(results_out -lb)
"$bin/lbdriver" -bindir "$bin" -haproxy "$haproxy" -config "$root/examples/deploy/haproxy.cfg" -commit "$commit" \
	-json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
