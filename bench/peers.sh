#!/usr/bin/env bash
# Times `mcpship init` and `mcpship remove` beside the assistants' own CLIs
# doing the same edit (claude mcp add-json / remove, gemini mcp add /
# remove, codex mcp add / remove) on 1 and 10 MiB user configs, in one
# run, with editparse (the parsing library's floor) beside them, and prints
# a Markdown table. The CLIs are the pinned ones scripts/install-clients.sh
# installs into $MCPSHIP_CACHE/clients/npm (default ~/.cache/mcpship).
#
#   bash bench/peers.sh                      # 3 rounds at 1 and 10 MiB
#   bash bench/peers.sh -rounds 5 -client codex
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
cache=${MCPSHIP_CACHE:-$HOME/.cache/mcpship}
peers=$cache/clients/npm/node_modules/.bin
if [ ! -x "$peers/claude" ]; then
  echo "peers.sh: the assistants' CLIs are not in $peers: run scripts/install-clients.sh first" >&2
  exit 1
fi
build_mcpship
build_release cmd/editparse
build_driver editbench
echo "mcpship at $(git -C "$root" rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/editbench" -bindir "$bin" -peers "$peers" -rounds 3 "$@"
