#!/usr/bin/env bash
# Measures a warm-worker call against the same tool run cold, side by side
# in one mcpship serve (bench/cmd/workerbench), with a program that boots
# in 300 ms and with one that boots at once (the fork/exec floor), and the
# memory per worker. Writes bench/results/<UTC timestamp>-worker.md.
#
#   bash bench/worker.sh              # 40 calls of each kind per boot time
#   bash bench/worker.sh -rounds 100
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
build_mcpship
(cd "$root" && go build "${flags[@]}" -o "$bin/workerstandin" ./tests/workerstandin)
build_driver workerbench
out=$(results_out -worker.md)
{
  echo "# Warm workers against cold runs"
  echo
  echo "mcpship at $(git -C "$root" rev-parse --short HEAD), $(nproc) cores"
  for boot in 300ms 0s; do
    echo
    echo "## Boot $boot"
    echo
    "$bin/workerbench" -mcpship "$bin/mcpship" -worker "$bin/workerstandin" -boot "$boot" "$@"
  done
} | tee "$out"
echo "wrote bench/$out" >&2
