#!/usr/bin/env bash
# What every start pays: spawn → initialize reply of `mcpship serve`
# beside go-sdk's reference server (bench/servers/gosdk), in one driver
# run, spawns interleaved; with BEFORE, mcpship built at that commit too,
# so that a change is measured against its parent in the same run. Writes
# bench/results/<UTC timestamp>-start.md and .json.
#
#   bash bench/start.sh                 # this checkout and go-sdk
#   bash bench/start.sh BEFORE [flags]  # and mcpship at commit BEFORE; any driver flag
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh

extra=()
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	before=$1
	shift
	src=$(mktemp -d)
	git -C "$root" archive "$before" | tar -x -C "$src"
	(cd "$src" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship-before" ./cmd/mcpship)
	rm -rf "$src"
	extra=(-extra-serve "mcpship-serve-before=$bin/mcpship-before")
	echo "mcpship-serve-before is mcpship at $(git -C "$root" rev-parse --short "$before")" >&2
fi
echo "building into $bin" >&2
build_release servers/gosdk
build_mcpship
build_driver driver

commit=$(commit_of cmd internal mcp go.mod go.sum)
out=$(results_out "-start")
"$bin/driver" -bindir "$bin" -commit "$commit" -only go-sdk,mcpship-serve,mcpship-serve-before \
	-rounds 5 -cold 40 -warm 0 -seq 0 -pipe 0 -init 0 -manifest 0 -nobig \
	"${extra[@]}" -json "$out.json" -md "$out.md" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
