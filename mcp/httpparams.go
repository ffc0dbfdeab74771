package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
)

// headerParam is a tool parameter that revision 2026-07-28 clients mirror
// into an Mcp-Param-NAME header: a property of the input schema, reached
// through "properties" alone, that has "x-mcp-header": NAME.
type headerParam struct {
	header string   // "Mcp-Param-" + NAME
	path   []string // property names from the root
	typ    string   // string, integer or boolean
}

// headerParams reads the x-mcp-header annotations of an input schema, and
// refuses those the transport's rules forbid: an empty or non-token name,
// one used twice, one on a property that is not a string, an integer or a
// boolean.
func headerParams(schema json.RawMessage) ([]headerParam, error) {
	if !bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		return nil, nil
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, err
	}
	var out []headerParam
	seen := map[string]bool{}
	var walk func(node map[string]any, path []string) error
	walk = func(node map[string]any, path []string) error {
		props, _ := node["properties"].(map[string]any)
		for _, name := range sortedKeys(props) {
			prop, _ := props[name].(map[string]any)
			if prop == nil {
				continue
			}
			p := append(slices.Clip(path), name)
			if v, ok := prop["x-mcp-header"]; ok {
				h, _ := v.(string)
				typ, _ := prop["type"].(string)
				switch {
				case !isToken(h):
					return fmt.Errorf("property %s: x-mcp-header %v must be a non-empty HTTP token (letters, digits and !#$%%&'*+-.^_`|~)", strings.Join(p, "."), v)
				case seen[strings.ToLower(h)]:
					return fmt.Errorf("property %s: x-mcp-header %q is used twice", strings.Join(p, "."), h)
				case typ != "string" && typ != "integer" && typ != "boolean":
					return fmt.Errorf("property %s: x-mcp-header needs a string, integer or boolean property, not %q", strings.Join(p, "."), typ)
				}
				seen[strings.ToLower(h)] = true
				out = append(out, headerParam{header: "Mcp-Param-" + h, path: p, typ: typ})
			}
			if err := walk(prop, p); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root, nil)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// headerValue decodes an Mcp-Name or Mcp-Param-* value: plain visible
// ASCII, or the Base64 sentinel =?base64?…?=.
func headerValue(v string) (string, error) {
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(enc, "?=") {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
		if err != nil {
			return "", fmt.Errorf("is not valid base64")
		}
		return string(b), nil
	}
	for _, c := range []byte(v) {
		if (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", fmt.Errorf("has a character outside visible ASCII; send such values as =?base64?…?=")
		}
	}
	return v, nil
}

// checkParams compares the Mcp-Param-* headers of a tools/call with the
// arguments its tool mirrors into them; it returns what does not match,
// or "".
func (h *HTTPHandler) checkParams(ctx context.Context, hdr http.Header, body []byte, p *probe) string {
	if p.Method != "tools/call" {
		return ""
	}
	var name string
	if json.Unmarshal(p.Params.Name, &name) != nil {
		return ""
	}
	var params []headerParam
	if h.srv.opts.proxy != nil {
		params = h.srv.forwardedHeaders(ctx, hdr, name)
	} else if rt, ok := h.srv.tool(name); ok {
		params = rt.headers
	}
	if len(params) == 0 {
		return ""
	}
	var call struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&call) != nil {
		return "" // the session answers arguments that are not an object
	}
	for _, hp := range params {
		value, present := lookup(call.Params.Arguments, hp.path)
		vals, sent := hdr[http.CanonicalHeaderKey(hp.header)]
		arg := strings.Join(hp.path, ".")
		switch {
		case !present && sent:
			return fmt.Sprintf("header mismatch: %s is sent but the arguments have no %s", hp.header, arg)
		case !present:
			continue
		case !sent || len(vals) == 0:
			return fmt.Sprintf("header mismatch: the %s header is missing; it must carry the argument %s", hp.header, arg)
		}
		got, err := headerValue(vals[0])
		if err != nil {
			return fmt.Sprintf("header mismatch: the %s header %s", hp.header, err)
		}
		if !sameValue(got, value) {
			return fmt.Sprintf("header mismatch: %s header %q does not match the argument %s", hp.header, got, arg)
		}
	}
	return ""
}

// lookup returns the value at path in args; absent or null is not present.
func lookup(args map[string]any, path []string) (any, bool) {
	var v any = args
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, v != nil
}

// sameValue compares a header's text with an argument: strings exactly,
// booleans as "true" or "false", numbers by value (42 and 42.0 agree).
func sameValue(header string, arg any) bool {
	switch a := arg.(type) {
	case string:
		return header == a
	case bool:
		return header == fmt.Sprint(a)
	case json.Number:
		x, ok1 := new(big.Float).SetString(header)
		y, ok2 := new(big.Float).SetString(a.String())
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	return false
}
