#!/bin/sh
# Runs the server command given as arguments with a line that is not
# JSON-RPC before each line it writes, as a server that prints debugging
# output on stdout would.
echo "starting up (this is not JSON)"
"$@" | while IFS= read -r line; do
	printf 'debug: about to write a message\n%s\n' "$line"
done
