#!/usr/bin/env bash
# Builds the benchmark servers and mcpship with the same flags into a
# temporary directory, runs the driver, and writes
# bench/results/<UTC timestamp>.md and .json.
#
#   bash bench/run.sh            # 5 rounds, about 2-3 minutes
#   bash bench/run.sh -rounds 9  # more rounds; any driver flag (see: go run ./cmd/driver -h)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0
echo "building into $bin" >&2
go build "${flags[@]}" -o "$bin/ref" ./servers/ref
go build "${flags[@]}" -o "$bin/refgoroutine" ./servers/refgoroutine
go build "${flags[@]}" -o "$bin/mcpship-echo" ./servers/mcpship-echo
go build "${flags[@]}" -o "$bin/gosdk" ./servers/gosdk
go build "${flags[@]}" -o "$bin/mcpgo" ./servers/mcpgo
# As release builds do (.goreleaser.yaml): without urfave/cli's docs generators.
(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
go build -o "$bin/driver" ./cmd/driver

commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain -- mcp cmd go.mod go.sum)" ]; then commit="$commit+dirty"; fi
mkdir -p results
out="results/$(date -u +%Y%m%dT%H%M%SZ)"
"$bin/driver" -bindir "$bin" -commit "$commit" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
