#!/bin/sh
# Serves "$@" at once the first time it is run (marked by the file
# $GATE_MARK); every later run waits until the file $GATE_OPEN exists
# first, as a server that takes long to start again.
if [ -e "$GATE_MARK" ]; then
	while [ ! -e "$GATE_OPEN" ]; do sleep 0.05; done
fi
: >"$GATE_MARK"
exec "$@"
