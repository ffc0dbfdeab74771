#!/bin/sh
# Serves "$@" the first time it is run (marked by the file $FLAKY_MARK);
# every later run exits 3 at once, as a server whose restart keeps failing.
if [ -e "$FLAKY_MARK" ]; then
	echo "flaky: refusing to start again" >&2
	exit 3
fi
: >"$FLAKY_MARK"
exec "$@"
