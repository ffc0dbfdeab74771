#!/bin/sh
# install-tools.sh installs the tools that scripts/test.sh needs beyond Go:
# goreleaser and actionlint (the distribution tests in tests/dist),
# staticcheck and deadcode (static checks), all pinned; shellcheck, dash
# and busybox (install.sh is checked with shellcheck and run under dash and
# busybox sh); podman, which builds the release image without a Docker
# daemon (tests/dist TestImage); and haproxy, the load balancer of the
# deployment tests (tests/realclients TestLoadBalancer).
#
#   sh scripts/install-tools.sh
#
# The pinned Go tools are built with "go install" into $MCPSHIP_CACHE/tools
# (default ~/.cache/mcpship/tools), where the tests look for them. The others
# come from apt-get when they are missing from PATH, which needs root (or
# password-less sudo) on a Debian-like system.
#
# The script is idempotent: a second run installs nothing. A tool it cannot
# install (no root for apt-get, no apt-get, a registry out of reach) gets one
# "SKIPPED: <tool>: <why>" line and the script goes on; the tests that need
# that tool skip. It exits 1 only on other failures.
set -eu

# GoReleaser v2.16.0: v2.15.1 rewrites checksums.txt after signing it, and
# v2.17 and later do not build from the module proxy here (see docs/install.md).
GORELEASER_MODULE=github.com/goreleaser/goreleaser/v2
GORELEASER_VERSION=v2.16.0

# actionlint checks the GitHub Actions workflows in .github/workflows (and,
# with shellcheck on PATH, the shell in their run steps).
ACTIONLINT_MODULE=github.com/rhysd/actionlint
ACTIONLINT_VERSION=v1.7.12

# staticcheck v0.7.0 (2026.1) and deadcode from x/tools v0.49.0: the last
# releases that build with Go 1.25, the module's minimum.
STATICCHECK_MODULE=honnef.co/go/tools
STATICCHECK_VERSION=v0.7.0
XTOOLS_MODULE=golang.org/x/tools
XTOOLS_VERSION=v0.49.0

say() { printf 'install-tools: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# skip TOOL WHY reports a tool that could not be installed, on one line.
skip() { say "SKIPPED: $1: $2"; }

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
			skip "$name" "the Go module proxy ($(go env GOPROXY)) cannot be reached; run this script again once it can"
			return
		fi
		die "go install $package@$version failed (output above)"
	fi
	say "$name $version installed in $(elapsed "$start"): $bin"
}

# install_apt_tools installs those of shellcheck, dash, busybox, podman and
# haproxy that are not on PATH with apt-get, or skips them when it cannot.
install_apt_tools() {
	missing=
	for name in shellcheck dash busybox podman haproxy; do
		# haproxy is in /usr/sbin, which a user's PATH may lack.
		command -v "$name" >/dev/null 2>&1 || [ -x "/usr/sbin/$name" ] || missing="$missing $name"
	done
	if [ -z "$missing" ]; then
		say "shellcheck, dash, busybox, podman and haproxy already installed"
		return
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		skip_each "not on PATH, and there is no apt-get here; install {} with your package manager"
		return
	fi
	sudo=
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
			skip_each "not on PATH, and installing it needs root: sudo apt-get install {}"
			return
		fi
		sudo="sudo -n"
	fi
	say "installing$missing with apt-get..."
	start=$(date +%s)
	# apt-get update exits 0 even when it fetched nothing, so check its output.
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1 || unreachable "$log"; then
		cat "$log" >&2
		unreachable "$log" || die "apt-get update failed (output above)"
		skip_each "the Debian package repositories cannot be reached; run this script again once they can"
		return
	fi
	# $missing is a word list on purpose.
	# shellcheck disable=SC2086
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >"$log" 2>&1; then
		cat "$log" >&2
		unreachable "$log" || die "apt-get install$missing failed (output above)"
		skip_each "the Debian package repositories cannot be reached; run this script again once they can"
		return
	fi
	say "installed$missing in $(elapsed "$start")"
}

# skip_each WHY skips each tool in $missing for the same reason; "{}" in WHY
# stands for the tool's name.
skip_each() {
	for name in $missing; do
		skip "$name" "$(printf '%s\n' "$1" | sed "s/{}/$name/g")"
	done
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
	install_go_tool staticcheck "$STATICCHECK_MODULE" "$STATICCHECK_MODULE/cmd/staticcheck" "$STATICCHECK_VERSION"
	install_go_tool deadcode "$XTOOLS_MODULE" "$XTOOLS_MODULE/cmd/deadcode" "$XTOOLS_VERSION"
	install_apt_tools
	say "done in $(elapsed "$all"); the Go tools are in $tools"
}

main "$@"
