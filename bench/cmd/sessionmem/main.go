// Command sessionmem measures, in one process, the memory each open
// legacy session costs the Streamable HTTP handlers of mcpship's mcp
// package, the official go-sdk and mcp-go, all serving the same echo tool:
// live heap and goroutine stacks after a GC, before and after opening -n
// sessions (initialize and notifications/initialized over loopback HTTP,
// none ended), divided by -n. Each handler is measured -rounds times, in
// turn; the report gives the median.
//
//	sessionmem [-n 2000] [-rounds 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpship/mcpship/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

func mcpshipHandler() http.Handler {
	s := mcp.NewServer(mcp.Implementation{Name: "bench-mcpship", Version: "1.0.0"}, nil)
	mcp.AddTool(s, mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(in.Text), nil, nil
		})
	return mcp.NewHTTPHandler(s, &mcp.HTTPOptions{MaxSessions: 1 << 20})
}

func gosdkHandler() http.Handler {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench-gosdk", Version: "1.0.0"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, &gosdk.StreamableHTTPOptions{JSONResponse: true})
}

func mcpgoHandler(stateful bool) func() http.Handler {
	return func() http.Handler {
		s := mcpgoserver.NewMCPServer("bench-mcpgo", "1.0.0", mcpgoserver.WithToolCapabilities(false))
		s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo the text back."), mcpgo.WithString("text", mcpgo.Required())),
			func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				text, _ := req.RequireString("text")
				return mcpgo.NewToolResultText(text), nil
			})
		return mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateful(stateful))
	}
}

func post(c *http.Client, url, session, body string) (string, error) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp.Header.Get("Mcp-Session-Id"), nil
}

func live() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// measure opens n sessions on a fresh handler and returns the bytes each
// costs, and whether the handler minted session ids.
func measure(newHandler func() http.Handler, n int) (float64, bool, error) {
	srv := httptest.NewServer(newHandler())
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer c.CloseIdleConnections()
	// One session first, so that what every handler sets up once is paid.
	if _, err := post(c, srv.URL, "", initBody); err != nil {
		return 0, false, err
	}
	before := live()
	minted := false
	for range n {
		sid, err := post(c, srv.URL, "", initBody)
		if err != nil {
			return 0, false, err
		}
		minted = minted || sid != ""
		if _, err := post(c, srv.URL, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			return 0, false, err
		}
	}
	after := live()
	runtime.KeepAlive(srv)
	return (float64(after) - float64(before)) / float64(n), minted, nil
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sessionmem","version":"1"}}}`

func main() {
	n := flag.Int("n", 2000, "sessions to open per measurement")
	rounds := flag.Int("rounds", 3, "measurements per handler")
	flag.Parse()
	handlers := []struct {
		name string
		new  func() http.Handler
	}{
		{"mcpship", mcpshipHandler},
		{"gosdk-stateful", gosdkHandler},
		{"mcpgo-stateful", mcpgoHandler(true)},
		{"mcpgo", mcpgoHandler(false)},
	}
	per := map[string][]float64{}
	minted := map[string]bool{}
	for range *rounds {
		for _, h := range handlers {
			b, m, err := measure(h.new, *n)
			if err != nil {
				fmt.Fprintf(os.Stderr, "sessionmem: %s: %v\n", h.name, err)
				os.Exit(1)
			}
			per[h.name] = append(per[h.name], b)
			minted[h.name] = m
		}
	}
	fmt.Printf("Live heap and stacks per open legacy session, %d sessions, median of %d (%s, GOMAXPROCS %d)\n\n", *n, *rounds, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Println("| handler | ids minted | bytes per session | ratio to mcpship |\n|---|---|---|---|")
	med := func(xs []float64) float64 { s := slices.Clone(xs); slices.Sort(s); return s[len(s)/2] }
	ours := med(per["mcpship"])
	for _, h := range handlers {
		m := med(per[h.name])
		fmt.Printf("| %s | %v | %.0f | %.1f× |\n", h.name, minted[h.name], m, m/ours)
	}
}
