#!/usr/bin/env bash
# Measures the peak RSS of `mcpship serve --manifest` for one message at the
# message cap and under 10,000 mixed requests (bench/cmd/servemem), against
# issue 20's budget of 4x the cap plus the idle RSS, and prints a Markdown
# table. With -vs BINARY, the same runs for that mcpship too, in the same run.
#
#   bash bench/serve-memory.sh
#   bash bench/serve-memory.sh -vs /path/to/older/mcpship -n 3000
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
vs=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -vs) vs=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
build_mcpship
build_driver servemem
echo "mcpship at $(git -C "$root" rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
"$bin/servemem" -mcpship "$bin/mcpship" "${args[@]}" || status=$?
if [ -n "$vs" ]; then
  echo
  echo "$vs:"
  "$bin/servemem" -mcpship "$vs" "${args[@]}" || true
fi
exit $status
