package installer

import (
	"fmt"
	"strings"
	"testing"
)

// bigConfig is a ~1 MiB ~/.claude.json-like file with 1,000 servers.
func bigConfig() string {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    \"srv%04d\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@scope/server-%d\"],\n      \"env\": {\"PAD\": %q}\n    },\n", i, i, strings.Repeat("x", 900))
	}
	b.WriteString("    \"last\": {\"command\": \"x\"}\n  }\n}\n")
	return b.String()
}

// BenchmarkAddLarge measures an add into the big config, without I/O.
func BenchmarkAddLarge(b *testing.B) {
	tg := &Target{Client: clients[1], Scope: ScopeUser, File: "big.json", Container: []string{"mcpServers"}}
	body := []byte(bigConfig())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		d, err := tg.Client.format.parse(tg.File, body)
		if err != nil {
			b.Fatal(err)
		}
		e := tg.Client.shape(srv)
		out, _, err := d.set(tg.Container, "mcpship", e)
		if err != nil {
			b.Fatal(err)
		}
		if err := tg.verify(d, plan{out: out, entry: plain(e)}, "mcpship"); err != nil {
			b.Fatal(err)
		}
	}
}
