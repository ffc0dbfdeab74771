#!/bin/sh
# install.sh installs mcpship from its GitHub releases.
#
#   curl -fsSL https://raw.githubusercontent.com/mcpship/mcpship/main/install.sh | sh
#   curl -fsSL https://raw.githubusercontent.com/mcpship/mcpship/main/install.sh | sh -s -- -v 1.2.3 -b /usr/local/bin
#
# It downloads the release archive for this OS and CPU, checks it against the
# release's checksums.txt (and checks that file's cosign signature when cosign
# is installed), and moves the binary into place in one step, so a failed run
# leaves nothing behind. Run "sh install.sh -h" for the options.
#
# Everything happens in main, called on the last line: a download cut short
# runs nothing.

set -eu

usage() {
	cat <<EOF
Usage: install.sh [-v VERSION] [-b DIR] [-n] [-h]

Install mcpship, the latest release unless -v says otherwise.

  -v VERSION  install this release, e.g. 1.2.3 or v1.2.3 (env MCPSHIP_VERSION)
  -b DIR      install into DIR (env MCPSHIP_INSTALL_DIR; default ~/.local/bin)
  -n          dry run: print what would be downloaded and installed, then stop
  -h          print this help

Environment:
  MCPSHIP_BASE_URL           releases URL (default $default_base)
  MCPSHIP_REQUIRE_SIGNATURE  1: fail unless cosign verifies checksums.txt
  MCPSHIP_TIMEOUT            seconds a download may take to connect or may
                             stall before it is given up (default 30; tried 3 times)

The script never uses sudo. To install into a directory you cannot write:
  curl -fsSL .../install.sh | sudo sh -s -- -b /usr/local/bin
EOF
}

say() { printf 'mcpship-install: %s\n' "$*" >&2; }

die() {
	say "error: $*"
	exit 1
}

has() { command -v "$1" >/dev/null 2>&1; }

# detect_platform sets os and arch to the Go names in the archive names.
detect_platform() {
	sys=$(uname -s) || die "uname -s failed; cannot tell which OS this is"
	machine=$(uname -m) || die "uname -m failed; cannot tell which CPU this is"
	case $sys in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	MINGW* | MSYS* | CYGWIN* | Windows*)
		die "this script installs on Linux and macOS; on Windows download mcpship_<version>_windows_<arch>.zip from $base, or run: go install github.com/mcpship/mcpship/cmd/mcpship@latest" ;;
	*)
		die "no mcpship release for OS '$sys' (releases exist for Linux and macOS); build from source: go install github.com/mcpship/mcpship/cmd/mcpship@latest" ;;
	esac
	case $machine in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64 | armv8*) arch=arm64 ;;
	*)
		die "no mcpship release for CPU '$machine' on $os (releases exist for x86_64 and arm64); build from source: go install github.com/mcpship/mcpship/cmd/mcpship@latest" ;;
	esac
}

# curl_get runs curl with limits on each request: it gives up when it cannot
# connect within $timeout seconds or receives next to nothing for $timeout
# seconds, and is tried 3 times.
curl_get() {
	curl -fsSL --connect-timeout "$timeout" --speed-limit 1024 --speed-time "$timeout" --retry 2 "$@"
}

# wget_get runs wget with the same limits where it can: GNU wget, and busybox
# wget built with timeouts, take -T (connect and read timeout); -t (tries) is
# ignored by busybox, which tries once. A wget without -T (Debian's busybox)
# is stopped after 10 times $timeout by timeout(1) instead.
wget_get() {
	if [ "$wget_has_T" = 1 ]; then
		wget -T "$timeout" -t 3 "$@"
	elif has timeout; then
		timeout "$((timeout * 10))" wget "$@"
	else
		wget "$@"
	fi
}

# fetch URL FILE downloads URL into FILE with curl or wget.
fetch() {
	if [ "$downloader" = curl ]; then
		curl_get -o "$2" "$1"
	else
		wget_get -q -O "$2" "$1"
	fi
}

# resolve_latest prints the tag that $base/latest redirects to
# (.../releases/tag/v1.2.3), without asking the rate-limited GitHub API.
resolve_latest() {
	if [ "$downloader" = curl ]; then
		url=$(curl_get -o /dev/null -w '%{url_effective}' "$base/latest") || return 1
	else
		# wget prints each response's headers; the last Location is the tag.
		url=$(wget_get -S --spider "$base/latest" 2>&1 | awk 'tolower($1) == "location:" { loc = $2 } END { print loc }' | tr -d '\r')
	fi
	case $url in
	*/tag/*) ;;
	*) return 1 ;;
	esac
	tag=${url##*/tag/}
	tag=${tag%%[?#]*}
	case $tag in
	v[0-9]*) ;;
	*) return 1 ;;
	esac
	case $tag in
	*[!0-9A-Za-z.+-]*) return 1 ;;
	esac
	printf '%s\n' "$tag"
}

# sha256 prints the SHA-256 of file $1 in hex.
sha256() {
	if has sha256sum; then
		sha256sum "$1" | awk '{ print $1 }'
	else
		shasum -a 256 "$1" | awk '{ print $1 }'
	fi
}

# verify_checksum checks $tmp/$archive against its line in $tmp/checksums.txt,
# matching the file name exactly.
verify_checksum() {
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
	case $want in
	"") die "checksums.txt of $tag has no line for $archive; the release is incomplete, try another version with -v" ;;
	*[!0-9a-f]*) die "checksums.txt of $tag has a malformed or repeated line for $archive; report it at https://github.com/mcpship/mcpship/issues" ;;
	esac
	got=$(sha256 "$tmp/$archive") || die "could not compute the SHA-256 of $archive"
	if [ "$got" != "$want" ]; then
		die "SHA-256 mismatch for $archive: checksums.txt says $want, the download is $got; the download is corrupt or was tampered with; nothing was installed, try again"
	fi
	say "checksum OK ($archive)"
}

# verify_signature checks checksums.txt with cosign when cosign is installed,
# and insists on it when MCPSHIP_REQUIRE_SIGNATURE=1.
verify_signature() {
	if ! has cosign; then
		if [ "$require_signature" = 1 ]; then
			die "MCPSHIP_REQUIRE_SIGNATURE=1 but cosign is not installed; install cosign (https://docs.sigstore.dev/cosign/system_config/installation/) and run again"
		fi
		say "cosign is not installed: checksums.txt is not signature-checked (set MCPSHIP_REQUIRE_SIGNATURE=1 to insist)"
		return 0
	fi
	bundle=checksums.txt.sigstore.json
	fetch "$download/$bundle" "$tmp/$bundle" ||
		die "could not download $download/$bundle; without it cosign cannot verify the release; nothing was installed"
	escaped_tag=$(printf '%s' "$tag" | sed 's/[.+]/\\&/g')
	if ! out=$(cosign verify-blob \
		--bundle "$tmp/$bundle" \
		--certificate-identity-regexp "^https://github\\.com/mcpship/mcpship/\\.github/workflows/.+@refs/tags/$escaped_tag\$" \
		--certificate-oidc-issuer https://token.actions.githubusercontent.com \
		"$tmp/checksums.txt" 2>&1); then
		printf '%s\n' "$out" >&2
		die "cosign could not verify the signature of checksums.txt for $tag (output above); the release may have been tampered with; nothing was installed"
	fi
	say "signature OK (cosign, checksums.txt)"
}

cleanup() {
	[ -n "$tmp" ] && rm -rf "$tmp"
	[ -n "$staged" ] && rm -f "$staged"
	return 0
}

main() {
	default_base=https://github.com/mcpship/mcpship/releases
	base=${MCPSHIP_BASE_URL:-$default_base}
	base=${base%/}
	version=${MCPSHIP_VERSION:-latest}
	dir=${MCPSHIP_INSTALL_DIR:-}
	require_signature=${MCPSHIP_REQUIRE_SIGNATURE:-0}
	timeout=${MCPSHIP_TIMEOUT:-30}
	dry_run=0
	tmp=
	staged=

	while getopts 'v:b:nh' opt; do
		case $opt in
		v) version=$OPTARG ;;
		b) dir=$OPTARG ;;
		n) dry_run=1 ;;
		h)
			usage
			exit 0
			;;
		*)
			usage >&2
			exit 2
			;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 0 ] || die "unexpected argument '$1'; run with -h for usage"

	if [ -z "$dir" ]; then
		[ -n "${HOME:-}" ] || die "HOME is not set; choose the install directory with -b DIR"
		dir=$HOME/.local/bin
	fi
	case $dir in
	/*) ;;
	*) dir=$(pwd)/$dir ;;
	esac
	version=${version#v}
	case $version in
	"" | *[!0-9A-Za-z.+-]*) die "'$version' is not a version; use e.g. -v 1.2.3" ;;
	esac

	case $timeout in
	"" | *[!0-9]* | 0*) die "MCPSHIP_TIMEOUT='$timeout' is not a number of seconds; use e.g. MCPSHIP_TIMEOUT=60" ;;
	esac

	detect_platform
	if has curl; then
		downloader=curl
	elif has wget; then
		downloader=wget
		case $(wget --help 2>&1) in
		*[[:space:]]-T[\ ,]*) wget_has_T=1 ;;
		*)
			wget_has_T=0
			has timeout ||
				say "warning: this wget has no timeout option and there is no timeout command: a stalled server can hang the download; install curl to avoid that"
			;;
		esac
	else
		die "neither curl nor wget is installed; install one of them and run again"
	fi
	has sha256sum || has shasum ||
		die "neither sha256sum nor shasum is installed; install coreutils or perl and run again"

	if [ "$dry_run" = 1 ]; then
		if [ "$version" = latest ]; then
			say "dry run: would install the release that $base/latest points to"
		else
			say "dry run: would download $base/download/v$version/mcpship_${version}_${os}_${arch}.tar.gz"
		fi
		say "dry run: would verify it against checksums.txt and install $dir/mcpship"
		return 0
	fi

	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	tmp=$(mktemp -d 2>/dev/null || mktemp -d -t mcpship) ||
		die "could not create a temporary directory; check TMPDIR"

	if [ "$version" = latest ]; then
		tag=$(resolve_latest) ||
			die "could not find the latest release from $base/latest; check your network, or pin a version with -v"
		version=${tag#v}
		say "latest release is $tag"
	else
		tag=v$version
	fi

	archive=mcpship_${version}_${os}_${arch}.tar.gz
	download=$base/download/$tag
	say "downloading $download/$archive"
	fetch "$download/$archive" "$tmp/$archive" ||
		die "could not download $download/$archive; check your network, and that release $tag exists ($base/tag/$tag) and has a $os/$arch archive; pick another version with -v"
	fetch "$download/checksums.txt" "$tmp/checksums.txt" ||
		die "could not download $download/checksums.txt; without it the archive cannot be checked; nothing was installed"
	verify_signature
	verify_checksum

	mkdir "$tmp/x"
	tar -xzf "$tmp/$archive" -C "$tmp/x" mcpship ||
		die "could not unpack mcpship from $archive; the archive is damaged; nothing was installed"
	# Only a regular file with no other name is a binary to install: a
	# symlink, hard link, directory, FIFO or device named mcpship is not
	# (copying it would install a local file, or hang). find's -type does not
	# follow symlinks.
	[ -n "$(find "$tmp/x/mcpship" -prune -type f -links 1)" ] ||
		die "the mcpship entry of $archive is not a regular file (a link, directory or device); the release is broken or was tampered with; nothing was installed; report it at https://github.com/mcpship/mcpship/issues"

	mkdir -p "$dir" 2>/dev/null || die "could not create $dir; choose another directory with -b DIR"
	[ -w "$dir" ] ||
		die "cannot write to $dir; choose a directory you own with -b DIR, or run the script with sudo yourself: ... | sudo sh -s -- -b $dir"
	[ ! -d "$dir/mcpship" ] || die "$dir/mcpship is a directory; move it away or choose another directory with -b DIR"
	# Copy next to the target, then rename: the rename is atomic, so the old
	# binary stays whole until the new one replaces it, even while it runs.
	staged=$dir/.mcpship.install.$$
	cp "$tmp/x/mcpship" "$staged" || die "could not write $staged; check the free space in $dir"
	chmod 755 "$staged"
	mv -f "$staged" "$dir/mcpship" || die "could not move $staged to $dir/mcpship"
	staged=
	say "installed mcpship $version as $dir/mcpship"

	case ":${PATH}:" in
	*":$dir:"*) ;;
	*)
		say "$dir is not on your PATH; add it, e.g. to ~/.profile:"
		say "  export PATH=\"$dir:\$PATH\""
		;;
	esac
}

# In braces, so that a download cut anywhere in this line is a syntax error
# rather than a run of main without its arguments.
{ main "$@"; }
