#!/usr/bin/env bash
# Measures `mcpship init` and `mcpship remove` on 1 and 10 MiB config files
# of each format (JSON, JSONC, TOML, YAML) against editfloor, the least a
# safe edit must do, and editparse, the parsing library's share, and prints
# a Markdown table.
#
#   bash bench/edit.sh                 # 5 rounds at 1 and 10 MiB
#   bash bench/edit.sh -rounds 3 -sizes 1 -client codex
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh
build_mcpship
build_release cmd/editfloor cmd/editparse
build_driver editbench
"$bin/editbench" -bindir "$bin" "$@"
