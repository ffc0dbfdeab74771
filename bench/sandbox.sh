#!/usr/bin/env bash
# Measures what the read-only sandbox adds to a call of a short read-only
# tool: the same program confined and not, side by side in one mcpship
# serve (bench/cmd/sandboxbench). Writes bench/results/<UTC timestamp>-sandbox.md.
#
#   bash bench/sandbox.sh                 # 200 calls of each
#   bash bench/sandbox.sh -rounds 500
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
build_mcpship
build_driver sandboxbench
out=$(results_out -sandbox.md)
{
  echo "# The read-only sandbox's cost per call"
  echo
  echo "mcpship at $(git -C "$root" rev-parse --short HEAD), $(nproc) cores, $(uname -r)"
  echo
  "$bin/sandboxbench" -mcpship "$bin/mcpship" "$@"
} | tee "$out"
echo "wrote bench/$out" >&2
