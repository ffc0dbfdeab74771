#!/usr/bin/env bash
# Runs every test of mcpship: static checks, unit and end-to-end tests
# against the built binary. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "install the tools the tests need (goreleaser, actionlint, shellcheck, dash, busybox; cached)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
sh scripts/install-tools.sh 2>&1 | tee "$log"
if grep -q 'SKIPPED' "$log"; then
	echo "!!! some tools could not be installed: the tests that need them will SKIP (see above) !!!"
else
	export MCPSHIP_DIST_TOOLS=require # a tool that went missing must fail the run, not skip
fi
export PATH="${MCPSHIP_CACHE:-$HOME/.cache/mcpship}/tools:$PATH"

step "go vet (the main module, and the benchmark module that builds on it; and the main module for macOS and Windows)"
go vet ./...
(cd bench && go vet ./...)
GOOS=darwin go vet ./...
GOOS=windows go vet ./...

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "these files need gofmt -w:"; echo "$unformatted"; exit 1
fi

step "go test (unit, golden transcripts, fuzz seed corpora, end-to-end)"
go test -count=1 ./...

step "go test -race (protocol core)"
go test -count=1 -race ./mcp/

step "real clients (Claude Code, Gemini CLI, Codex, Inspector, TypeScript SDK, go-sdk, mcp-go, conformance)"
bash scripts/test-realclients.sh
