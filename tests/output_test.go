package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

var outputManifest = filepath.Join("testdata", "manifests", "output.json")

// readResource reads uri with resources/read and returns its bytes and
// whether it came as text or as a blob.
func readResource(t *testing.T, c *mcp.Client, uri string) ([]byte, string) {
	t.Helper()
	var res struct {
		Contents []mcp.ResourceContents `json:"contents"`
	}
	if err := c.Call(context.Background(), "resources/read", map[string]any{"uri": uri}, &res); err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("resources/read %s: %+v", uri, res.Contents)
	}
	if b := res.Contents[0].Blob; b != "" {
		data, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			t.Fatal(err)
		}
		return data, "blob"
	}
	return []byte(res.Contents[0].Text), "text"
}

// link returns the result's resource_link, failing without one.
func link(t *testing.T, res *mcp.CallToolResult) mcp.Content {
	t.Helper()
	for _, ct := range res.Content {
		if ct.Type == "resource_link" {
			return ct
		}
	}
	t.Fatalf("no resource_link in %s", text(res))
	return mcp.Content{}
}

func standinOutput(t *testing.T, words ...string) []byte {
	t.Helper()
	out, err := exec.Command(filepath.Join(standinDir, "standin"+exeSuffix()), words...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutputBudget cuts long results to the tool's budget, head and tail
// kept, with a note that names the resource holding the whole output,
// which resources/read gives back byte for byte: text as text, bytes that
// are not UTF-8 as a blob, JSON as JSON.
func TestOutputBudget(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--manifest", outputManifest)
	cmd.Env = append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	c, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init, err := c.Initialize(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if init.Capabilities.Resources == nil {
		t.Error("serve --manifest does not announce the resources capability")
	}

	// The default budget: 40000 characters.
	res := callTool(t, c, "print", map[string]any{"words": []string{"lines", "5000"}})
	body := res.Content[0].Text
	if n := utf8.RuneCountInString(body); n > 40000 || n < 35000 {
		t.Errorf("default budget: %d characters, want at most 40000 and most of them", n)
	}
	if !strings.HasPrefix(body, "line 1 of 5000: ünïcödé\n") || !strings.HasSuffix(body, "line 5000 of 5000: ünïcödé\n") {
		t.Errorf("head or tail lost: %.100q … %q", body, body[len(body)-100:])
	}
	want := standinOutput(t, "lines", "5000")
	l := link(t, res)
	for _, s := range []string{"cut here to fit the output budget of 40000 characters (outputBudget in " + outputManifest + ")",
		fmt.Sprintf("The whole output, %d bytes, is the resource %s: read it with resources/read", len(want), l.URI)} {
		if !strings.Contains(body, s) {
			t.Errorf("the note lacks %q", s)
		}
	}
	if got, kind := readResource(t, c, l.URI); kind != "text" || !bytes.Equal(got, want) {
		t.Errorf("resource: %s of %d bytes, want the %d bytes of stdout as text", kind, len(got), len(want))
	}
	if l.MimeType != "text/plain" || l.Size != int64(len(want)) {
		t.Errorf("resource_link %+v", l)
	}

	// A tool's own budget, and bytes that are not text.
	res = callTool(t, c, "print_small", map[string]any{"words": []string{"bytes", "100000"}})
	if n := utf8.RuneCountInString(res.Content[0].Text); n > 2000 {
		t.Errorf("outputBudget 2000: %d characters", n)
	}
	l = link(t, res)
	want = standinOutput(t, "bytes", "100000")
	if got, kind := readResource(t, c, l.URI); kind != "blob" || !bytes.Equal(got, want) || l.MimeType != "application/octet-stream" {
		t.Errorf("binary resource: %s %s, %d bytes, equal %v", kind, l.MimeType, len(got), bytes.Equal(got, want))
	}

	// JSON over the budget: no structuredContent, the whole JSON kept.
	res = callTool(t, c, "print_json", map[string]any{"words": []string{"big"}})
	if res.IsError || res.StructuredContent != nil {
		t.Errorf("cut JSON: isError %v, structuredContent kept %v", res.IsError, res.StructuredContent != nil)
	}
	l = link(t, res)
	if got, kind := readResource(t, c, l.URI); kind != "text" || len(got) < 3<<20 || l.MimeType != "application/json" {
		t.Errorf("JSON resource: %s %s of %d bytes", kind, l.MimeType, len(got))
	}

	// A short result is not cut.
	res = callTool(t, c, "print_small", map[string]any{"words": []string{"lines", "3"}})
	if len(res.Content) != 1 || strings.Contains(text(res), "cut here") {
		t.Errorf("a short result was cut: %s", text(res))
	}

	var list struct {
		Resources []mcp.Resource `json:"resources"`
	}
	if err := c.Call(context.Background(), "resources/list", nil, &list); err != nil || len(list.Resources) != 3 {
		t.Errorf("resources/list: %v, %+v; want the 3 outputs kept", err, list.Resources)
	}
	var e *mcp.Error
	if err := c.Call(context.Background(), "resources/read", map[string]any{"uri": "mcpship://output/nope"}, &list); !asRPC(err, &e) || e.Code != mcp.CodeResourceNotFound {
		t.Errorf("unknown resource: %v", err)
	}
}

func asRPC(err error, e **mcp.Error) bool {
	x, ok := err.(*mcp.Error)
	*e = x
	return ok
}

// TestNoResourcesWithoutManifest: serve's own tools never cut, so it
// announces no resources.
func TestNoResourcesWithoutManifest(t *testing.T) {
	c, err := mcp.StartCommand(exec.Command(binPath, "serve"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init, err := c.Initialize(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if init.Capabilities.Resources != nil {
		t.Error("serve without a manifest announces resources")
	}
}

// TestOutputBudgetErrors: a budget of 0 or out of range is refused by
// manifest check and serve, naming the field.
func TestOutputBudgetErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.json")
	for _, tc := range []struct{ budget, want string }{
		{"0", `tools[0].outputBudget: 0 characters would leave no room for any output; use at least 1000, or leave it out for the default of 40000`},
		{"999", `tools[0].outputBudget: 999 is out of range; use 1000 to 67108864 characters`},
		{`"big"`, `tools[0].outputBudget: expected an integer, got the string "big"`},
	} {
		m := `{"tools":[{"name":"t","description":"d","command":["echo"],"outputBudget":` + tc.budget + `}]}`
		if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"manifest", "check", file}, {"serve", "--manifest", file}} {
			out, err := exec.Command(binPath, args...).CombinedOutput()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if wantCode := map[string]int{"manifest": 1, "serve": 64}[args[0]]; code != wantCode || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s with outputBudget %s: exit %d, want %d and %q:\n%s", args[0], tc.budget, code, wantCode, tc.want, out)
			}
		}
	}
}

// TestCutResultsAreNotCached: a cached tool's result that was cut links to
// an output the session keeps only for a while, so it is never stored:
// the same call runs again and links to an output that can be read.
func TestCutResultsAreNotCached(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.json")
	if err := os.WriteFile(filepath.Join(dir, "input.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := `{"tools":[{"name":"p","description":"d","command":["standin","{words}"],"inputs":{"words":{"type":"array"}},
		"output":"text","dir":".","outputBudget":2000,"readOnly":true,"cache":{"inputs":["input.txt"]}}]}`
	if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, "--manifest", file)
	callTool(t, c, "p", map[string]any{"words": []string{"lines", "3"}})
	// A short result is cached: the second call is a hit.
	if res := callTool(t, c, "p", map[string]any{"words": []string{"lines", "3"}}); res.Meta["io.github.mcpship/cache"] == nil {
		t.Errorf("a short result of a cached tool was not served from the cache: %v", res.Meta)
	}
	for i := range 2 {
		res := callTool(t, c, "p", map[string]any{"words": []string{"lines", "5000"}})
		if res.Meta["io.github.mcpship/cache"] != nil {
			t.Errorf("call %d: a cut result was served from the cache: %v", i, res.Meta)
		}
		if data, _ := readResource(t, c, link(t, res).URI); !bytes.HasPrefix(data, []byte("line 1 of 5000")) {
			t.Errorf("call %d: resource %.40q", i, data)
		}
	}
}
