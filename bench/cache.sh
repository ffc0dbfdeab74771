#!/usr/bin/env bash
# Measures the result cache of manifest tools end to end over stdio,
# side by side in one mcpship serve with the same tool uncached
# (bench/cmd/cachebench): a hit with 10 and with 1,000 recorded inputs,
# what a miss adds, and mcpship's memory per entry; then the engine alone
# (go test -bench in internal/resultcache). Writes
# bench/results/<UTC timestamp>-cache.md.
#
#   bash bench/cache.sh               # 200 calls of each kind
#   bash bench/cache.sh -rounds 500
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
build_mcpship
build_driver cachebench
out=$(results_out -cache.md)
{
  echo "# The result cache against uncached runs"
  echo
  echo "mcpship at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores"
  echo
  "$bin/cachebench" -mcpship "$bin/mcpship" "$@"
  echo
  echo "## The engine alone (go test -bench, internal/resultcache)"
  echo
  echo '```'
  (cd "$root" && go test -run '^$' -bench . -benchtime 2s ./internal/resultcache | grep -E '^(Benchmark|goos|cpu)')
  echo '```'
} | tee "$out"
echo "wrote bench/$out" >&2
