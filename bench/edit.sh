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
root=$(cd .. && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0
(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
go build "${flags[@]}" -o "$bin/editfloor" ./cmd/editfloor
go build "${flags[@]}" -o "$bin/editparse" ./cmd/editparse
go build -o "$bin/editbench" ./cmd/editbench
"$bin/editbench" -bindir "$bin" "$@"
