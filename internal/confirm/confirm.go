// Package confirm asks the person at the client to confirm one call of a
// tool before the tool runs it. The tool's confirm text, its {input}
// placeholders filled with the call's values, goes to the client as a form
// elicitation (elicitation/create) with one required boolean, "confirm";
// the call runs only when the answer is an accept with "confirm": true.
// Anything else (a decline, a cancel, no answer in time, a client that
// cannot ask) ends the call with an isError result that says why, and
// nothing runs.
//
// The asking goes through [mcp.InputRequired], so the client is asked the
// way its revision knows: an elicitation/create request of the server
// (revisions 2025-06-18 and 2025-11-25), or an InputRequiredResult that it
// answers by calling again (2026-07-28). Revisions before 2025-06-18 have
// no elicitation, and a client that did not declare the capability cannot
// be asked: [Prompt.Ask] answers those with an isError result itself,
// rather than the protocol error mcp would give, so that the model reads
// why the tool did not run.
//
// The manifest runner (a tool's "confirm") and the adapters
// (Tool.Confirm) share it.
package confirm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// Key is the key of the input request that asks for the confirmation.
const Key = "confirm"

// Prompt is a parsed confirm text.
type Prompt struct {
	parts []part
}

// part is a piece of a confirm text: literal text, or a placeholder.
type part struct{ text, input string }

// Parse parses a confirm text, in which {name} stands for the call's value
// of the input name, and "{{" and "}}" for literal braces.
func Parse(text string) (*Prompt, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("empty: write the question to ask before the tool runs, such as \"Delete {path}?\"")
	}
	p := &Prompt{}
	var lit strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case (c == '{' || c == '}') && i+1 < len(text) && text[i+1] == c:
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q has a '{' with no closing '}'; write {{ for a literal brace", text)
			}
			name := text[i+1 : i+end]
			if !validName(name) {
				return nil, fmt.Errorf("%q: {%s} is not a placeholder: name an input, as in {path}; write {{ and }} for literal braces", text, name)
			}
			if lit.Len() > 0 {
				p.parts = append(p.parts, part{text: lit.String()})
				lit.Reset()
			}
			p.parts = append(p.parts, part{input: name})
			i += end
		case c == '}':
			return nil, fmt.Errorf("%q has a '}' with no opening '{'; write }} for a literal brace", text)
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		p.parts = append(p.parts, part{text: lit.String()})
	}
	return p, nil
}

// validName reports whether name could name an input: a letter or '_',
// then letters, digits, '_', '-' or '.' (flag names have those).
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return name != "" && len(name) <= 128
}

// Inputs returns the names the placeholders name, each once, in order.
func (p *Prompt) Inputs() []string {
	var names []string
	for _, pt := range p.parts {
		if pt.input != "" && !slices.Contains(names, pt.input) {
			names = append(names, pt.input)
		}
	}
	return names
}

// Unknown returns the message for a placeholder {name} that names none of
// inputs: a "did you mean" for a close one, else the list.
func Unknown(name string, inputs []string) string {
	for _, in := range inputs {
		if strings.EqualFold(in, name) || distance(strings.ToLower(in), strings.ToLower(name)) <= 2 {
			return fmt.Sprintf("{%s} names no input of the tool (did you mean {%s}?)", name, in)
		}
	}
	list := "it has none"
	if len(inputs) > 0 {
		list = "its inputs are " + strings.Join(inputs, ", ")
	}
	return fmt.Sprintf("{%s} names no input of the tool; %s", name, list)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Message is the question for a call with vals, the call's values by input
// name (decoded JSON, numbers as [json.Number] or float64; an input left
// out is absent): the text with each placeholder replaced by its value,
// quoted and escaped as a Go string is, so that no value can end the
// quote and go on with text of its own.
func (p *Prompt) Message(vals map[string]any) string {
	var b strings.Builder
	for _, pt := range p.parts {
		if pt.input == "" {
			b.WriteString(pt.text)
			continue
		}
		v, ok := vals[pt.input]
		if !ok {
			b.WriteString("(not given)")
			continue
		}
		render(&b, v)
	}
	return b.String()
}

// Values shown in a question are cut: a string past maxChars characters to
// its head and tail, an array past maxItems items to its first ones.
const (
	maxChars = 400
	maxItems = 20
)

// render writes v as the question shows it.
func render(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		r := []rune(v)
		if len(r) <= maxChars {
			b.WriteString(strconv.Quote(v))
			return
		}
		half := maxChars / 2
		fmt.Fprintf(b, "%s…(%d characters not shown)…%s", strconv.Quote(string(r[:half])), len(r)-2*half, strconv.Quote(string(r[len(r)-half:])))
	case json.Number:
		b.WriteString(string(v)) // a number's text, which decoding checked
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case []any:
		b.WriteByte('[')
		for i, item := range v {
			if i == maxItems {
				fmt.Fprintf(b, ", …(%d more items)", len(v)-maxItems)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, item)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i == maxItems {
				fmt.Fprintf(b, ", …(%d more entries)", len(keys)-maxItems)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, k)
			b.WriteString(": ")
			render(b, v[k])
		}
		b.WriteByte('}')
	default:
		raw, _ := json.Marshal(v)
		render(b, string(raw))
	}
}

// maxAge is how long an answer counts after the question was asked: well
// past the 30 minutes mcp waits for a legacy client's answer, so that only
// a 2026-07-28 client that replays an old answer meets it.
const maxAge = time.Hour

// Ask returns nil when the person confirmed this call, and otherwise the
// result to answer the call with: the question ([mcp.InputRequired]), or
// an isError result that says why the tool did not run.
//
// vals are the call's values, as [Prompt.Message] takes them, and runs is
// what the call runs (its command line, the values it passes in the
// environment): an answer counts only for the question it answers, asked
// for the same runs, within an hour. A 2026-07-28 client that calls again
// with other arguments, or with an answer it was never asked for, is
// asked again.
func (p *Prompt) Ask(req *mcp.CallRequest, vals map[string]any, runs []string) *mcp.CallToolResult {
	msg := p.Message(vals)
	digest := digestOf(req.Name, msg, runs)
	if answer, ok := req.InputResponses[Key]; ok && stateCurrent(req.RequestState, digest, time.Now()) {
		return verdict(req.Name, msg, answer)
	}
	if why := cannotAsk(req); why != "" {
		return mcp.ErrorResult("Not run: %s asks the user to confirm first (%s), and %s. Nothing was run.", req.Name, msg, why)
	}
	params := map[string]any{
		"message": msg,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{Key: map[string]any{
				"type":        "boolean",
				"title":       "Run " + req.Name,
				"description": "Set to true to run it; it runs only then.",
				"default":     false,
			}},
			"required": []string{Key},
		},
	}
	state := fmt.Sprintf("confirm1 %d %s", time.Now().Unix(), digest)
	return mcp.InputRequired(map[string]mcp.InputRequest{Key: {Method: "elicitation/create", Params: params}}, state)
}

// digestOf identifies a question: the tool, its text and what it runs.
func digestOf(tool, msg string, runs []string) string {
	h := sha256.New()
	for _, s := range append([]string{tool, msg}, runs...) {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// stateCurrent reports whether state is that of the question digest,
// asked within maxAge of now. mcp has checked that nobody changed it.
func stateCurrent(state, digest string, now time.Time) bool {
	var asked int64
	var d string
	if n, err := fmt.Sscanf(state, "confirm1 %d %s", &asked, &d); err != nil || n != 2 || d != digest {
		return false
	}
	age := now.Sub(time.Unix(asked, 0))
	return age >= -time.Minute && age <= maxAge
}

// verdict is nil for an answer that confirms, else the isError result.
func verdict(tool, msg string, answer json.RawMessage) *mcp.CallToolResult {
	var a struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return mcp.ErrorResult("Not run: the client's answer to the confirmation of %s (%s) is not an elicitation result: %v. Nothing was run.", tool, msg, err)
	}
	switch a.Action {
	case "accept":
		if yes, _ := a.Content[Key].(bool); yes {
			return nil
		}
		return mcp.ErrorResult("Not run: the user answered the confirmation of %s (%s) without setting %q to true. Nothing was run; do not call it again unless the user asks for it.", tool, msg, Key)
	case "decline":
		return mcp.ErrorResult("Not run: the user declined to run %s (%s). Nothing was run; do not call it again unless the user asks for it.", tool, msg)
	case "cancel":
		return mcp.ErrorResult("Not run: the user dismissed the confirmation of %s (%s) without answering. Nothing was run.", tool, msg)
	}
	return mcp.ErrorResult("Not run: the client answered the confirmation of %s (%s) with action %q, not \"accept\". Nothing was run.", tool, msg, a.Action)
}

// cannotAsk says why the client of req cannot be asked, or "".
func cannotAsk(req *mcp.CallRequest) string {
	if req.ProtocolVersion < "2025-06-18" {
		return fmt.Sprintf("this client speaks MCP %s, which has no elicitation to ask with (revision 2025-06-18 brought it)", req.ProtocolVersion)
	}
	var caps struct {
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		} `json:"elicitation"`
	}
	json.Unmarshal(req.ClientCapabilities, &caps)
	declared := func(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
	switch e := caps.Elicitation; {
	case e == nil:
		return "this client cannot ask: it did not declare the elicitation capability"
	case !declared(e.Form) && declared(e.URL):
		return "this client cannot ask: it declared elicitation by URL only, not the form the question needs"
	}
	return ""
}
