package registry_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpship/mcpship/internal/registry"
)

func Example() {
	// A registry on loopback standing in for registry.modelcontextprotocol.io.
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"server": {"name": "io.github.example/hello", "description": "Says hello", "version": "1.0.0",
			"packages": [{"registryType": "npm", "identifier": "@example/hello-mcp", "version": "1.0.0", "transport": {"type": "stdio"}}]}}`)
	}))
	defer fake.Close()

	c := &registry.Client{BaseURL: fake.URL}
	r, err := c.Server(context.Background(), "io.github.example/hello", "latest")
	if err != nil {
		log.Fatal(err)
	}
	npxInstalled := func(launcher string) bool { return launcher == "npx" }
	p, err := r.Server.Choose("linux", "amd64", npxInstalled)
	if err != nil {
		log.Fatal(err)
	}
	l, err := p.Launch(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Server.Name, r.Server.Version)
	fmt.Println(l.Command, l.Args)
	// Output:
	// io.github.example/hello 1.0.0
	// npx [-y @example/hello-mcp@1.0.0]
}
