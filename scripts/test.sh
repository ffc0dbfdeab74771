#!/usr/bin/env bash
# Runs every test of mcpship: static checks, unit and end-to-end tests
# against the built binary. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "go vet"
go vet ./...

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "these files need gofmt -w:"; echo "$unformatted"; exit 1
fi

step "go test (unit, golden transcripts, fuzz seed corpora, end-to-end)"
go test -count=1 ./...

step "go test -race (protocol core)"
go test -count=1 -race ./mcp/
