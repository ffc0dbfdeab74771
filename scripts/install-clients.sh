#!/bin/sh
# install-clients.sh installs the MCP clients that the real-client tests in
# tests/realclients drive: Claude Code, Gemini CLI, Codex, the MCP Inspector
# and the TypeScript SDK; in a second group the official conformance suite
# (0.1.16, the npm "latest") with the Node 22 it needs; and in a third its
# prerelease 0.2.0-alpha.12, the first line with the server scenarios of
# protocol revision 2026-07-28; and in a fourth the official MCP Bundle CLI
# and library (@anthropic-ai/mcpb), which check and launch the bundles of
# "mcpship pack".
#
#   sh scripts/install-clients.sh                 # every group
#   sh scripts/install-clients.sh mcpb conformance  # only these groups
#
# The versions are pinned in one place: the package.json and
# package-lock.json files under tests/realclients/node (the clients),
# tests/realclients/node/conformance (the suite) and
# tests/realclients/node/conformance-modern (its prerelease),
# tests/realclients/node/mcpb (the bundle tools), tests/realclients/node/servers
# (the servers and supergateway). Each group is installed
# with "npm install" (which follows the lock file), run in
# $MCPSHIP_CACHE/clients/<group> (default ~/.cache/mcpship/clients), where the
# tests look for it, through scripts/npm.sh, with the user's own npm
# configuration.
#
# The script is idempotent: a group whose lock file has not changed since
# its last complete install is left alone. Every group is tried, whatever
# became of the ones before. When npm is missing, the registry cannot be
# reached, or npm fails otherwise (a CA it does not trust, a package the
# registry lacks), it exits 0 with one "SKIPPED:" line, so that the tests
# that need those clients skip; under CI=true, where everything is required,
# a failure other than an unreachable registry exits 1, after the other
# groups were tried.
set -eu

say() { printf 'install-clients: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# skipped WHAT WHY reports, on one line, clients that could not be installed,
# and stops: the real-client tests that need them skip.
skipped() {
	say "SKIPPED: $1: $2; run scripts/install-clients.sh again once that is fixed"
	exit 0
}

# elapsed prints the seconds since $1, a "date +%s" value.
elapsed() { echo "$(($(date +%s) - $1))s"; }

# stamp prints what identifies an install of the group in directory $1: the
# hash of its lock file and package.json, and the Node major version that
# ran the install scripts.
stamp() {
	node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
	printf '%s node%s\n' "$(cat "$1/package.json" "$1/package-lock.json" | sha256sum | cut -d' ' -f1)" "$node_major"
}

# install_group NAME SRC installs the packages pinned in SRC into
# $clients/NAME. When npm fails it prints npm's output, adds NAME to
# $unreached (the registry could not be reached) or $failed, and returns 1.
install_group() {
	name=$1 src=$2 dest=$clients/$1
	want=$(stamp "$src")
	if [ -d "$dest/node_modules" ] && [ "$(cat "$dest/.installed" 2>/dev/null)" = "$want" ]; then
		say "$name: already installed in $dest ($(pinned "$src"))"
		return
	fi
	say "$name: installing $(pinned "$src") into $dest with npm install..."
	start=$(date +%s)
	mkdir -p "$dest" || die "cannot create $dest; set MCPSHIP_CACHE to a writable directory"
	rm -rf "$dest/.installed" "$dest/node_modules"
	cp "$src/package.json" "$src/package-lock.json" "$dest/"
	# Not "npm ci": the lock file lacks an optional dependency of vite
	# (napi-windows-process-start-time) that the registry does not have, and
	# "npm ci" refuses that. "npm install" with the lock file installs the
	# same locked versions; check_pinned verifies the direct ones after.
	if ! npm_install "$dest" >"$log" 2>&1; then
		sed "s/^/  $name: /" "$log" >&2
		[ -n "$reason" ] || reason=$(npm_why "$log")
		if npm_unreachable "$log"; then
			unreached="$unreached $name"
		else
			failed="$failed $name"
		fi
		return 1
	fi
	grep -v 'EBADENGINE\|allowScripts\|^npm warn *$' "$log" >&2 || true
	check_pinned "$dest"
	echo "$want" >"$dest/.installed"
	say "$name: installed in $(elapsed "$start") ($(du -sh "$dest" 2>/dev/null | cut -f1))"
}

# check_pinned fails unless every direct dependency of the package.json in
# $1 is installed at exactly its pinned version (optional ones may be
# missing on platforms they do not support).
check_pinned() {
	node -e '
		const dir = process.argv[1];
		const p = require(dir + "/package.json");
		let bad = [];
		const check = (deps, optional) => {
			for (const [name, want] of Object.entries(deps || {})) {
				let got;
				try { got = require(dir + "/node_modules/" + name + "/package.json").version; } catch (e) {}
				if (got === undefined && optional) continue;
				if (got !== want) bad.push(name + ": want " + want + ", got " + (got || "nothing"));
			}
		};
		check(p.dependencies, false);
		check(p.optionalDependencies, true);
		if (bad.length) { console.error(bad.join("\n")); process.exit(1); }
	' "$1" || die "$1 does not hold the pinned versions (listed above)"
}

# pinned prints the direct dependencies of the package.json in $1 as
# name@version.
pinned() {
	node -e '
		const p = require(process.argv[1] + "/package.json");
		const d = Object.assign({}, p.dependencies, p.optionalDependencies);
		console.log(Object.keys(d).map(k => k + "@" + d[k]).join(" "));
	' "$1"
}

main() {
	root=$(cd "$(dirname "$0")/.." && pwd) || die "cannot find the repository root"
	cache=${MCPSHIP_CACHE:-${HOME:?HOME is not set; set HOME or MCPSHIP_CACHE}/.cache/mcpship}
	clients=$cache/clients
	# shellcheck source=scripts/npm.sh
	. "$root/scripts/npm.sh"
	if ! npm_ready; then
		skipped "every real client" "node and npm are not on PATH (install Node.js 20 or later with npm; see CONTRIBUTING.md for what Node 20 warns)"
	fi
	log=$(mktemp) || die "cannot create a temporary file; check TMPDIR"
	trap 'rm -f "$log"' EXIT
	all=$(date +%s)
	registry=$(npm_registry)
	say "node $(node --version), npm $(npm --version), registry $registry, cache $clients"
	unreached="" failed="" reason=""
	groups=${*:-npm conformance conformance-modern mcpb servers}
	for group in $groups; do
		case $group in
		npm) src=$root/tests/realclients/node ;;
		conformance | conformance-modern | mcpb | servers) src=$root/tests/realclients/node/$group ;;
		*) die "no client group named $group: the groups are npm, conformance, conformance-modern, mcpb and servers" ;;
		esac
		install_group "$group" "$src" || true
	done
	if [ -n "$failed" ] && npm_required; then
		[ -z "$unreached" ] || say "the npm registry ($registry) could not be reached for:$unreached"
		die "npm install failed for:$failed (npm's output above, each line after the group's name)"
	fi
	if [ -n "$failed" ]; then
		skipped "the client groups$unreached$failed" "npm install failed ($reason; npm's output above, each line after the group's name), with registry $registry"
	fi
	if [ -n "$unreached" ]; then
		skipped "the client groups$unreached" "the npm registry ($registry) cannot be reached ($reason)"
	fi
	say "all clients ready in $(elapsed "$all"); tests find them in $clients"
}

main "$@"
