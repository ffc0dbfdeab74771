#!/usr/bin/env bash
# Builds the Streamable HTTP benchmark servers and mcpship with the same
# flags into a temporary directory, runs cmd/httpdriver, and writes
# bench/results/<UTC timestamp>-http.md and .json.
#
#   bash bench/http.sh                 # 3 rounds of 2 s cells, about 5 minutes
#   bash bench/http.sh -rounds 5       # any driver flag (go run ./cmd/httpdriver -h)
#   ALSO_REVS="main~3" bash bench/http.sh
#                                      # also mcpship's echo server built at each REV,
#                                      # as mcpship@REV, to compare a change in one run
set -euo pipefail
cd "$(dirname "$0")"
. ./lib.sh

echo "building into $bin" >&2
build_release servers/mcpship-echo servers/gosdk servers/mcpgo
build_mcpship
build_driver httpdriver
also=()
for rev in ${ALSO_REVS:-}; do
	wt=$(mktemp -d)
	git -C "$root" worktree add -q --detach "$wt" "$rev"
	(cd "$wt/bench" && go build "${flags[@]}" -o "$bin/mcpship-echo@$rev" ./servers/mcpship-echo)
	git -C "$root" worktree remove --force "$wt"
	also+=(-also "mcpship@$rev=$bin/mcpship-echo@$rev")
done

commit=$(commit_of mcp cmd internal go.mod go.sum)
out=$(results_out -http)
"$bin/httpdriver" -bindir "$bin" -commit "$commit" -json "$out.json" -md "$out.md" "${also[@]}" "$@"
echo "wrote bench/$out.md and bench/$out.json" >&2
