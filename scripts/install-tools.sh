#!/bin/sh
# install-tools.sh installs the tools that the distribution tests in
# tests/dist need: goreleaser and actionlint (pinned), shellcheck, dash and
# busybox.
#
#   sh scripts/install-tools.sh
#
# goreleaser and actionlint are built with "go install" into $MCPSHIP_CACHE/tools
# (default ~/.cache/mcpship/tools); the tests look for it there. The others
# come from apt-get when they are missing from PATH, which needs root (or
# password-less sudo) on a Debian-like system.
#
# The script is idempotent: a second run installs nothing. It exits 0 with a
# "SKIPPED:" line only when a package registry cannot be reached; any other
# failure exits 1.
set -eu

# GoReleaser v2.16.0: v2.15.1 rewrites checksums.txt after signing it, and
# v2.17 and later do not build from the module proxy here (see docs/install.md).
GORELEASER_MODULE=github.com/goreleaser/goreleaser/v2
GORELEASER_VERSION=v2.16.0

# actionlint checks the GitHub Actions workflows in .github/workflows (and,
# with shellcheck on PATH, the shell in their run steps).
ACTIONLINT_MODULE=github.com/rhysd/actionlint
ACTIONLINT_VERSION=v1.7.12

say() { printf 'install-tools: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

skipped() {
	say ""
	say "SKIPPED: $*"
	say "SKIPPED: the distribution tests will skip too; run this script again once the registry is reachable."
	say ""
	exit 0
}

# unreachable reports whether the log file $1 shows a network failure rather
# than a real error.
unreachable() {
	grep -Eqi 'dial tcp|no such host|connection refused|connection reset|i/o timeout|network is unreachable|TLS handshake timeout|Temporary failure (in name resolution|resolving)|Could not resolve|Could not connect|Unable to connect|Failed to fetch|proxyconnect' "$1"
}

# elapsed prints the seconds since $1, a "date +%s" value.
elapsed() { echo "$(($(date +%s) - $1))s"; }

# install_go_tool NAME MODULE PACKAGE VERSION builds PACKAGE of MODULE at
# VERSION into $tools/NAME, unless that version is there already.
install_go_tool() {
	name=$1 module=$2 package=$3 version=$4
	bin=$tools/$name
	if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null |
		grep -Eq "^[[:space:]]+mod[[:space:]]+${module}[[:space:]]+${version}([[:space:]]|\$)"; then
		say "$name $version already in $tools"
		return
	fi
	command -v go >/dev/null 2>&1 || die "go is not on PATH; install Go 1.25 or later, then run this script again"
	say "building $name $version into $tools with go install (cold caches can take several minutes)..."
	start=$(date +%s)
	if ! GOBIN=$tools go install "$package@$version" >"$log" 2>&1; then
		cat "$log" >&2
		if unreachable "$log"; then
			skipped "the Go module proxy ($(go env GOPROXY)) cannot be reached; $name was not installed"
		fi
		die "go install $package@$version failed (output above)"
	fi
	say "$name $version installed in $(elapsed "$start"): $bin"
}

install_apt_tools() {
	missing=
	command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
	command -v dash >/dev/null 2>&1 || missing="$missing dash"
	command -v busybox >/dev/null 2>&1 || missing="$missing busybox"
	if [ -z "$missing" ]; then
		say "shellcheck, dash and busybox already on PATH"
		return
	fi
	command -v apt-get >/dev/null 2>&1 ||
		die "missing:$missing; apt-get is not available here, so install them with your package manager"
	sudo=
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
			die "missing:$missing; installing them needs root: run this script as root or with sudo"
		fi
		sudo="sudo -n"
	fi
	say "installing$missing with apt-get..."
	start=$(date +%s)
	# apt-get update exits 0 even when it fetched nothing, so check its output.
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1 || unreachable "$log"; then
		cat "$log" >&2
		unreachable "$log" && skipped "the Debian package repositories cannot be reached;$missing not installed"
		die "apt-get update failed (output above)"
	fi
	# $missing is a word list on purpose.
	# shellcheck disable=SC2086
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >"$log" 2>&1; then
		cat "$log" >&2
		unreachable "$log" && skipped "the Debian package repositories cannot be reached;$missing not installed"
		die "apt-get install$missing failed (output above)"
	fi
	say "installed$missing in $(elapsed "$start")"
}

main() {
	cache=${MCPSHIP_CACHE:-${HOME:?HOME is not set; set HOME or MCPSHIP_CACHE}/.cache/mcpship}
	tools=$cache/tools
	mkdir -p "$tools" || die "cannot create $tools; set MCPSHIP_CACHE to a writable directory"
	log=$(mktemp) || die "cannot create a temporary file; check TMPDIR"
	trap 'rm -f "$log"' EXIT
	all=$(date +%s)
	install_go_tool goreleaser "$GORELEASER_MODULE" "$GORELEASER_MODULE" "$GORELEASER_VERSION"
	install_go_tool actionlint "$ACTIONLINT_MODULE" "$ACTIONLINT_MODULE/cmd/actionlint" "$ACTIONLINT_VERSION"
	install_apt_tools
	say "all tools ready in $(elapsed "$all"); tests find goreleaser and actionlint in $tools"
}

main "$@"
