# shellcheck shell=sh
# npm.sh is the one way the scripts run npm. A script sources it:
#
#   . "$root/scripts/npm.sh"
#
# npm_install runs "npm install" in the directory that holds the
# package.json, never with --prefix: --prefix also moves npm's global config
# file ($PREFIX/etc/npmrc), and so loses a registry, proxy or CA that a
# company set-up put there. tests/dist/npm_test.go runs each script that
# uses npm against a registry and CA set only in that file, and checks that
# no script runs npm another way.

# npm_ready reports whether node and npm are on PATH.
npm_ready() {
	command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1
}

# npm_install DIR ARGS... runs "npm install ARGS" in DIR, which holds (or,
# for "npm install SPEC...", gets) the package.json, with npm's own
# configuration (registry, proxy, CA, cache). CI=true and no stdin keep
# every package non-interactive; the retries are bounded so that a registry
# out of reach fails in seconds.
npm_install() {
	(
		cd "$1" || exit
		shift
		CI=true npm install --no-audit --no-fund --loglevel=warn \
			--fetch-retries=2 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 \
			"$@" </dev/null
	)
}

# npm_unreachable reports whether npm's output in the file $1 shows that the
# registry could not be reached, rather than another failure.
npm_unreachable() {
	grep -Eqi 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network request to .* failed|request to .* failed, reason|socket hang up|getaddrinfo' "$1"
}

# npm_why prints what npm's output in the file $1 says went wrong, in a few
# words: its error code (E404, SELF_SIGNED_CERT_IN_CHAIN, ...) or reason.
npm_why() {
	why=$(grep -m1 -o 'reason: .*\|code [A-Z][A-Z0-9_]*' "$1" || true)
	printf '%s\n' "${why:-npm gave no error code}"
}

# npm_registry prints the registry npm uses here.
npm_registry() {
	npm config get registry 2>/dev/null || echo unknown
}

# npm_required reports whether a failed npm install must fail the script:
# under CI=true everything is required; elsewhere it is one "SKIPPED:" line,
# and the tests that need the packages skip.
npm_required() {
	[ "${CI:-}" = true ]
}
