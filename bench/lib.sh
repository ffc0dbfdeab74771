# Sourced by the bench/*.sh scripts, from bench/: root is the checkout,
# bin a temporary directory removed on exit, and the functions build the
# programs into it with the same flags as the release (.goreleaser.yaml).
root=$(cd .. && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
flags=(-trimpath -ldflags='-s -w')
export CGO_ENABLED=0

# build_mcpship builds mcpship as release builds do: without urfave/cli's
# docs generators.
build_mcpship() {
	(cd "$root" && go build "${flags[@]}" -tags=urfave_cli_no_docs -o "$bin/mcpship" ./cmd/mcpship)
}

# build_release DIR... builds each bench/DIR (servers/gosdk) with the
# release flags, named for its last element.
build_release() {
	for d in "$@"; do go build "${flags[@]}" -o "$bin/${d##*/}" "./$d"; done
}

# build_driver NAME builds the driver bench/cmd/NAME (a plain build: it
# is not what is measured).
build_driver() {
	go build -o "$bin/$1" "./cmd/$1"
}

# commit_of PATH... prints the short commit of the checkout, with "+dirty"
# when any PATH has uncommitted changes.
commit_of() {
	local c
	c=$(git -C "$root" rev-parse --short HEAD)
	if [ -n "$(git -C "$root" status --porcelain -- "$@")" ]; then c="$c+dirty"; fi
	echo "$c"
}

# results_out SUFFIX makes bench/results and prints the path of a new
# report there: results/<UTC timestamp>SUFFIX.
results_out() {
	mkdir -p results
	echo "results/$(date -u +%Y%m%dT%H%M%SZ)$1"
}
