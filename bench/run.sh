#!/usr/bin/env bash
# Builds the benchmark servers and mcpship with the same flags into a
# temporary directory, runs the driver, and writes
# bench/results/<UTC timestamp>.md and .json.
#
#   bash bench/run.sh            # 5 rounds, about 2-3 minutes
#   bash bench/run.sh -rounds 9  # more rounds; any driver flag (see: go run ./cmd/driver -h)
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh

echo "building into $bin" >&2
build_release servers/ref servers/refgoroutine servers/mcpship-echo servers/gosdk servers/mcpgo
build_mcpship
build_driver driver

commit=$(commit_of mcp cmd go.mod go.sum)
out=$(results_out "")
"$bin/driver" -bindir "$bin" -commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
