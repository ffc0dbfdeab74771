// Command conformanceserver serves, over stdio or (with -http ADDR) over HTTP, the fixture tools that the
// official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16
// and 0.2.0-alpha.12) calls in its tools-call-*, json-schema-2020-12 and
// server-stateless server scenarios, built on mcpship's own mcp package and
// nothing else. TestConformanceFixtures and TestConformanceModern run it
// behind the loopback stdio↔HTTP relay.
//
// It implements only the fixtures that the mcp package can answer
// honestly. Those that need what the package does not have (requests from
// the server to the client, such as sampling and elicitation) are left out,
// and the test lists the scenarios that call them as skipped, with the
// reason.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// redPixelPNG is a 1×1 red PNG, the minimal test image the suite suggests.
const redPixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// jsonSchema202012 is the input schema the json-schema-2020-12 scenario
// expects to find in tools/list unchanged: $schema, $defs and
// additionalProperties (SEP-1613, checked by 0.1.16), and $anchor, allOf
// with a nested anyOf, and if/then/else (SEP-2106, checked by
// 0.2.0-alpha.12 at revision 2026-07-28). It is the schema the suite's
// description of the scenario gives.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"}
      }
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := mcp.NewServer(mcp.Implementation{Name: "mcpship-conformance-fixtures", Version: "0"}, nil)
	if err := addTools(s); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceserver:", err)
		os.Exit(1)
	}
	var err error
	if len(os.Args) == 3 && os.Args[1] == "-http" {
		err = serveHTTP(ctx, s, os.Args[2])
	} else {
		err = s.Serve(ctx, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformanceserver:", err)
		os.Exit(1)
	}
}

// serveHTTP serves s with the mcp package's HTTP handler at /mcp on addr
// (loopback), as a Go program that mounts it on its own server does, until
// ctx is done. It prints the endpoint's URL on standard error.
func serveHTTP(ctx context.Context, s *mcp.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := mcp.NewHTTPHandler(s, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		h.Shutdown(context.Background())
		hs.Close()
	}()
	fmt.Fprintf(os.Stderr, "serving MCP on http://%s/mcp\n", ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// embeddedResource is the block the tools-call-embedded-resource scenario
// asks for.
var embeddedResource = mcp.Content{Type: "resource", Resource: &mcp.ResourceContents{
	URI: "test://embedded-resource", MimeType: "text/plain", Text: "This is an embedded resource content.",
}}

// noArgs is the input schema of a tool without arguments.
var noArgs = mcp.ObjectSchema(map[string]any{})

func addTools(s *mcp.Server) error {
	tools := []tool{
		{mcp.Tool{Name: "test_simple_text", Description: "Returns a simple text response", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("This is a simple text response for testing."), nil
			}},
		{mcp.Tool{Name: "test_image_content", Description: "Returns a 1x1 red PNG", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{{Type: "image", Data: redPixelPNG, MimeType: "image/png"}}}, nil
			}},
		{mcp.Tool{Name: "test_audio_content", Description: "Returns a short silent WAV clip", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{{Type: "audio", Data: base64.StdEncoding.EncodeToString(silentWAV()), MimeType: "audio/wav"}}}, nil
			}},
		{mcp.Tool{Name: "test_embedded_resource", Description: "Returns a text resource embedded in the result", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{embeddedResource}}, nil
			}},
		{mcp.Tool{Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					{Type: "text", Text: "Multiple content types test:"},
					{Type: "image", Data: redPixelPNG, MimeType: "image/png"},
					{Type: "resource", Resource: &mcp.ResourceContents{URI: "test://mixed-content-resource", MimeType: "application/json", Text: `{"test":"data","value":123}`}},
				}}, nil
			}},
		{mcp.Tool{Name: "test_error_handling", Description: "Always fails", InputSchema: noArgs},
			func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// A plain error: the mcp package turns it into a result
				// with isError and the error's text.
				return nil, errors.New("This tool intentionally returns an error for testing")
			}},
		{mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs", InputSchema: noArgs},
			func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				req.Log(mcp.LevelInfo, "Tool execution started")
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
				req.Log(mcp.LevelInfo, "Tool processing data")
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
				req.Log(mcp.LevelInfo, "Tool execution completed")
				return mcp.TextResult("Tool with logging executed successfully"), nil
			}},
		{mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100", InputSchema: noArgs},
			func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				req.Progress(0, 100, "")
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
				req.Progress(50, 100, "")
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
				req.Progress(100, 100, "")
				return mcp.TextResult("Tool with progress executed successfully"), nil
			}},
		{mcp.Tool{Name: "test_logging_tool", Description: "Sends a log message at info while it runs", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// At revision 2026-07-28 the mcp package sends it only when
				// the request's _meta asks for a log level; server-stateless
				// calls without one and checks that nothing arrives.
				req.Log(mcp.LevelInfo, "test_logging_tool ran")
				return mcp.TextResult("Tool with logging executed"), nil
			}},
		{mcp.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// server-stateless calls it without declaring sampling and
				// wants -32021 naming the capability; the suite never calls
				// it with sampling declared.
				var caps map[string]json.RawMessage
				json.Unmarshal(req.ClientCapabilities, &caps)
				if _, ok := caps["sampling"]; !ok {
					return nil, &mcp.Error{Code: mcp.CodeMissingClientCapability, Message: "Missing required client capability: sampling",
						Data: map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
				}
				return mcp.TextResult("sampling is declared"), nil
			}},
		{mcp.Tool{Name: "test_header_params", Description: "Echoes its arguments; region and count are mirrored into Mcp-Param-Region and Mcp-Param-Count (x-mcp-header)",
			InputSchema: json.RawMessage(`{"type":"object","required":["region"],"properties":{
				"region":{"type":"string","x-mcp-header":"Region","description":"a region, mirrored into Mcp-Param-Region"},
				"count":{"type":"integer","x-mcp-header":"Count","description":"a count, mirrored into Mcp-Param-Count"},
				"query":{"type":"string"}}}`)},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("Received: " + string(req.Arguments)), nil
			}},
		{mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features", InputSchema: json.RawMessage(jsonSchema202012)},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("Received: " + string(req.Arguments)), nil
			}},
	}
	for _, t := range append(tools, inputTools()...) {
		if err := s.AddTool(t.tool, t.handler); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// silentWAV returns a valid WAV file: 0.01 s of silence, 8 kHz, 8-bit mono
// PCM.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16))   // fmt chunk size
	le(uint16(1))    // PCM
	le(uint16(1))    // mono
	le(uint32(rate)) // sample rate
	le(uint32(rate)) // byte rate
	le(uint16(1))    // block align
	le(uint16(8))    // bits per sample
	b.WriteString("data")
	le(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples)) // 8-bit PCM silence is 128
	return b.Bytes()
}
