#!/bin/sh
# install-wrapfixtures.sh installs the real programs that the tests of
# "mcpship wrap" (tests/wrap_test.go) read the help of, drafted, served and
# called: one or more per help layout.
#
#   sh scripts/install-wrapfixtures.sh          # every group: apt, go, npm
#   sh scripts/install-wrapfixtures.sh npm      # only these groups
#
# From Debian (apt-get, as root or with password-less sudo; about 45 MB to
# download), one or more per help layout: gdu, restic, hugo and gh (Cobra),
# duf (Go's flag), yamllint, reuse, httpie and pre-commit (argparse),
# python3-flask, black and sqlite-utils (Click), fd-find, hyperfine, hexyl,
# ripgrep, bat, lsd, tealdeer and zoxide (clap 2, 3 and 4), tar and cpio
# (GNU argp), shellcheck (GetOpt), sqlite3 (options after one dash), jq
# (options of two values), git and man-db (git's subcommands print their
# manual pages for --help); and sd, which replaces in place, for the
# read-only verdicts.
# From the Go module proxy (go install, into $MCPSHIP_CACHE/wrapfixtures,
# default ~/.cache/mcpship/wrapfixtures): yq (Cobra), swag (urfave/cli v2),
# and urfave/cli v3's own build tool, as "builder" (urfave/cli v3). From the
# npm registry (npm install through scripts/npm.sh, with the user's own npm
# configuration, into $MCPSHIP_CACHE/wrapfixtures/npm): prettier (a help of
# its own) and ESLint (optionator). The tests also use goreleaser,
# actionlint and staticcheck from install-tools.sh.
#
# The script is idempotent: a second run installs nothing. What it cannot
# install (no root, a registry out of reach, an npm install that fails) gets
# one "SKIPPED: <what>: <why>" line and the script goes on; the tests that
# need it skip, or fail under CI=true. It exits 1 only on other failures,
# and, under CI=true, when npm fails other than for an unreachable registry.
set -eu

# PACKAGE BINARY, one per line: the binary decides whether to install.
APT_PROGRAMS="gdu /usr/bin/gdu
duf /usr/bin/duf
yamllint /usr/bin/yamllint
reuse /usr/bin/reuse
python3-flask /usr/bin/flask
black /usr/bin/black
fd-find /usr/bin/fdfind
hyperfine /usr/bin/hyperfine
hexyl /usr/bin/hexyl
ripgrep /usr/bin/rg
restic /usr/bin/restic
git /usr/bin/git
hugo /usr/bin/hugo
gh /usr/bin/gh
httpie /usr/bin/http
pre-commit /usr/bin/pre-commit
sqlite-utils /usr/bin/sqlite-utils
bat /usr/bin/batcat
lsd /usr/bin/lsd
tealdeer /usr/bin/tldr
zoxide /usr/bin/zoxide
tar /usr/bin/tar
cpio /usr/bin/cpio
shellcheck /usr/bin/shellcheck
sqlite3 /usr/bin/sqlite3
jq /usr/bin/jq
man-db /usr/bin/man
sd /usr/bin/sd"

# NAME MODULE PACKAGE VERSION, one per line.
GO_PROGRAMS="yq github.com/mikefarah/yq/v4 github.com/mikefarah/yq/v4 v4.54.3
swag github.com/swaggo/swag github.com/swaggo/swag/cmd/swag v1.16.4
builder github.com/urfave/cli/v3 github.com/urfave/cli/v3/scripts v3.14.0"

# NAME PACKAGE VERSION BINARY, one per line: from the npm registry, into
# $MCPSHIP_CACHE/wrapfixtures/npm, NAME a link to the package's BINARY.
NPM_PROGRAMS="prettier prettier 3.3.3 prettier
eslint eslint 8.57.0 eslint"

say() { printf 'install-wrapfixtures: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
skip() { say "SKIPPED: $1: $2"; }

# unreachable reports whether the log file $1 shows a network failure rather
# than a real error (apt-get and go; npm's are npm_unreachable's).
unreachable() {
	grep -Eqi 'dial tcp|no such host|connection refused|connection reset|i/o timeout|network is unreachable|TLS handshake timeout|Temporary failure (in name resolution|resolving)|Could not resolve|Could not connect|Unable to connect|Failed to fetch|proxyconnect|403 Forbidden' "$1"
}

install_apt() {
	missing=
	while read -r package bin; do
		[ -x "$bin" ] || missing="$missing $package"
	done <<EOF
$APT_PROGRAMS
EOF
	if [ -z "$missing" ]; then
		say "the Debian programs are installed"
		return
	fi
	why=
	sudo=
	if ! command -v apt-get >/dev/null 2>&1; then
		why="there is no apt-get here; install it with your package manager"
	elif [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo="sudo -n"
		else
			why="installing it needs root"
		fi
	fi
	if [ -n "$why" ]; then
		for package in $missing; do
			skip "$package (wrap tests)" "$why: sudo apt-get install $package"
		done
		return
	fi
	say "installing$missing with apt-get..."
	start=$(date +%s)
	# apt-get install first, with the lists the machine's own configuration
	# keeps; they are updated only when that fails.
	# shellcheck disable=SC2086 # a word list on purpose
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >"$log" 2>&1; then
		# shellcheck disable=SC2086
		if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1 || unreachable "$log" ||
			! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >"$log" 2>&1; then
			cat "$log" >&2
			unreachable "$log" || die "apt-get failed (output above)"
			for package in $missing; do
				skip "$package (wrap tests)" "the Debian package repositories cannot be reached; run this script again once they can"
			done
			return
		fi
	fi
	say "installed them in $(($(date +%s) - start))s"
}

install_go() {
	echo "$GO_PROGRAMS" | while read -r name module package version; do
		bin=$dir/$name
		if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null |
			grep -Eq "^[[:space:]]+mod[[:space:]]+${module}[[:space:]]+${version}([[:space:]]|\$)"; then
			say "$name $version already in $dir"
			continue
		fi
		command -v go >/dev/null 2>&1 || die "go is not on PATH; install Go 1.25 or later"
		say "building $name ($package@$version) with go install..."
		tmp=$(mktemp -d)
		if ! GOBIN=$tmp go install "$package@$version" >"$log" 2>&1; then
			cat "$log" >&2
			rm -rf "$tmp"
			unreachable "$log" || die "go install $package@$version failed (output above)"
			skip "$name (wrap tests)" "the Go module proxy ($(go env GOPROXY)) cannot be reached; run this script again once it can"
			continue
		fi
		mv "$tmp"/* "$bin" # the one program go install built
		rm -rf "$tmp"
		say "$name $version installed: $bin"
	done
}

install_npm() {
	missing=
	specs=
	while read -r name package version bin; do
		specs="$specs $package@$version"
		link=$dir/$name
		if [ -x "$link" ] && grep -q "\"version\": \"$version\"" "$dir/npm/node_modules/$package/package.json" 2>/dev/null; then
			say "$name $version already in $dir"
		else
			missing="$missing $name"
		fi
	done <<EOF
$NPM_PROGRAMS
EOF
	[ -n "$missing" ] || return 0
	what="${missing# } (wrap tests)"
	if ! npm_ready; then
		skip "$what" "node and npm are not on PATH; install Node.js 18 or later with npm"
		return
	fi
	say "installing$missing with npm into $dir/npm..."
	# All in one install, saved to the directory's own package.json, so that
	# none is pruned by the next.
	mkdir -p "$dir/npm" || die "cannot create $dir/npm; set MCPSHIP_CACHE to a writable directory"
	[ -f "$dir/npm/package.json" ] || echo '{"private": true}' >"$dir/npm/package.json"
	# shellcheck disable=SC2086 # a word list on purpose
	if ! npm_install "$dir/npm" --save-exact $specs >"$log" 2>&1; then
		sed 's/^/  npm: /' "$log" >&2
		if npm_unreachable "$log"; then
			skip "$what" "the npm registry ($(npm_registry)) cannot be reached ($(npm_why "$log")); run this script again once it can"
			return
		fi
		npm_required && die "npm install$specs failed ($(npm_why "$log"); npm's output above)"
		skip "$what" "npm install$specs failed ($(npm_why "$log"); npm's output above), with registry $(npm_registry); run this script again once that is fixed"
		return
	fi
	while read -r name package version bin; do
		ln -sf "npm/node_modules/.bin/$bin" "$dir/$name"
	done <<EOF
$NPM_PROGRAMS
EOF
	say "installed$missing in $dir"
}

main() {
	root=$(cd "$(dirname "$0")/.." && pwd) || die "cannot find the repository root"
	# shellcheck source=scripts/npm.sh
	. "$root/scripts/npm.sh"
	cache=${MCPSHIP_CACHE:-${HOME:?HOME is not set; set HOME or MCPSHIP_CACHE}/.cache/mcpship}
	dir=$cache/wrapfixtures
	mkdir -p "$dir" || die "cannot create $dir; set MCPSHIP_CACHE to a writable directory"
	log=$(mktemp) || die "cannot create a temporary file"
	trap 'rm -f "$log"' EXIT
	groups=${*:-apt go npm}
	for group in $groups; do
		case $group in
		apt | go | npm) "install_$group" ;;
		*) die "no group named $group: the groups are apt, go and npm" ;;
		esac
	done
}

main "$@"
