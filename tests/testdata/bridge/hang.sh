#!/bin/sh
# A server that answers initialize (the bridge's first request, id 1) and
# then nothing at all, as a server stuck in a loop would; it does not read
# its input either, so it does not stop when its input ends. With
# HANG_PIDFILE set, it writes its pid there.
[ -z "${HANG_PIDFILE:-}" ] || echo $$ >>"$HANG_PIDFILE"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hang","version":"1"}}}'
exec sleep 100000
