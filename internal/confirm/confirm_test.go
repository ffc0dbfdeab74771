package confirm

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

func TestParse(t *testing.T) {
	for text, want := range map[string]string{
		"Delete {path}?":          "",
		"Run {{literal}} {a-b.c}": "",
		"":                        "empty",
		"  ":                      "empty",
		"Delete {path?":           "no closing '}'",
		"Delete path}?":           "no opening '{'",
		"Delete {}?":              "{} is not a placeholder",
		"Delete {1st}?":           "{1st} is not a placeholder",
		"Delete {a b}?":           "{a b} is not a placeholder",
	} {
		_, err := Parse(text)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Parse(%q) = %v, want %q", text, err, want)
		}
	}
}

func TestMessage(t *testing.T) {
	p, err := Parse("Delete {path} ({n}, {flags}, {env}, {gone}) {{x}}?")
	if err != nil {
		t.Fatal(err)
	}
	got := p.Message(map[string]any{
		"path":  "a\"? Answer yes.\n\u202eevil",
		"n":     json.Number("12"),
		"flags": []any{"-f", true, 1.5},
		"env":   map[string]any{"B": "2", "A": "1"},
	})
	want := `Delete "a\"? Answer yes.\n\u202eevil" (12, ["-f", true, 1.5], {"A": "1", "B": "2"}, (not given)) {x}?`
	if got != want {
		t.Errorf("Message =\n%s\nwant\n%s", got, want)
	}
	if names := p.Inputs(); strings.Join(names, ",") != "path,n,flags,env,gone" {
		t.Errorf("Inputs = %v", names)
	}
}

func TestMessageCutsLongValues(t *testing.T) {
	p, _ := Parse("{v}")
	long := strings.Repeat("a", 300) + strings.Repeat("b", 300)
	got := p.Message(map[string]any{"v": long})
	want := `"` + strings.Repeat("a", 200) + `"…(200 characters not shown)…"` + strings.Repeat("b", 200) + `"`
	if got != want {
		t.Errorf("Message = %s", got)
	}
	items := make([]any, 25)
	for i := range items {
		items[i] = "x"
	}
	if got := p.Message(map[string]any{"v": items}); !strings.HasSuffix(got, `"x", …(5 more items)]`) {
		t.Errorf("Message = %s", got)
	}
}

func TestUnknown(t *testing.T) {
	if got := Unknown("pth", []string{"force", "path"}); !strings.Contains(got, "did you mean {path}?") {
		t.Errorf("Unknown = %s", got)
	}
	if got := Unknown("zzz", []string{"force", "path"}); !strings.Contains(got, "its inputs are force, path") {
		t.Errorf("Unknown = %s", got)
	}
	if got := Unknown("zzz", nil); !strings.Contains(got, "it has none") {
		t.Errorf("Unknown = %s", got)
	}
}

func TestStateCurrent(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	state := "confirm1 1800000000 abc"
	for _, c := range []struct {
		state, digest string
		at            time.Time
		want          bool
	}{
		{state, "abc", now, true},
		{state, "abc", now.Add(59 * time.Minute), true},
		{state, "abc", now.Add(61 * time.Minute), false},
		{state, "abd", now, false},
		{"", "abc", now, false},
		{"confirm1 x abc", "abc", now, false},
	} {
		if got := stateCurrent(c.state, c.digest, c.at); got != c.want {
			t.Errorf("stateCurrent(%q, %q, +%v) = %v", c.state, c.digest, c.at.Sub(now), got)
		}
	}
}

// TestAsk follows one call through Ask: asked, then answered.
func TestAsk(t *testing.T) {
	p, _ := Parse("Delete {path}?")
	vals := map[string]any{"path": "f"}
	runs := []string{"rm", "--", "f"}
	req := &mcp.CallRequest{Name: "rm", ProtocolVersion: "2025-11-25", ClientCapabilities: json.RawMessage(`{"elicitation":{}}`)}
	if res := p.Ask(req, vals, runs); res == nil || res.IsError || len(res.Content) != 0 {
		t.Fatalf("first Ask = %+v, want the question", res)
	}
	req.RequestState = "confirm1 " + strconv.FormatInt(time.Now().Unix(), 10) + " " + digestOf("rm", p.Message(vals), runs)
	req.InputResponses = map[string]json.RawMessage{Key: json.RawMessage(`{"action":"accept","content":{"confirm":true}}`)}
	if res := p.Ask(req, vals, runs); res != nil {
		t.Errorf("accepted Ask = %+v, want nil (run)", res)
	}
	if res := p.Ask(req, vals, []string{"rm", "--", "g"}); res == nil || res.IsError {
		t.Errorf("Ask for another command line = %+v, want the question again", res)
	}
	req.InputResponses[Key] = json.RawMessage(`{"action":"decline"}`)
	if res := p.Ask(req, vals, runs); res == nil || !res.IsError {
		t.Errorf("declined Ask = %+v, want an isError result", res)
	}
}
