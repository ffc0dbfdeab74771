package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// The fixture tools of the suite's input-required-result scenarios (SEP-2322,
// revision 2026-07-28): each asks the client for input with
// mcp.InputRequired and completes once the retry carries the answers. The
// mcp package signs requestState, refuses a changed one, refuses
// inputResponses that are not objects, and answers -32021 for a request
// whose capability the client did not declare.

// elicit returns an elicitation/create request for one string property.
func elicit(message, property string) mcp.InputRequest {
	return mcp.InputRequest{Method: "elicitation/create", Params: map[string]any{
		"message": message,
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{property: map[string]any{"type": "string"}}, "required": []string{property}},
	}}
}

func sample(text string, maxTokens int) mcp.InputRequest {
	return mcp.InputRequest{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

var listRoots = mcp.InputRequest{Method: "roots/list", Params: map[string]any{}}

// elicited returns the content field of an ElicitResult the client
// accepted, and whether it is one.
func elicited(raw json.RawMessage, field string) (string, bool) {
	var r struct {
		Action  string
		Content map[string]any
	}
	if raw == nil || json.Unmarshal(raw, &r) != nil || r.Action != "accept" {
		return "", false
	}
	v, ok := r.Content[field]
	return fmt.Sprint(v), ok
}

// sampled returns the text of a CreateMessageResult.
func sampled(raw json.RawMessage) (string, bool) {
	var r struct {
		Content struct{ Type, Text string }
	}
	if raw == nil || json.Unmarshal(raw, &r) != nil || r.Content.Type != "text" {
		return "", false
	}
	return r.Content.Text, true
}

// roots returns the URIs of a ListRootsResult.
func roots(raw json.RawMessage) ([]string, bool) {
	var r struct {
		Roots []struct{ URI string }
	}
	if raw == nil || json.Unmarshal(raw, &r) != nil || r.Roots == nil {
		return nil, false
	}
	var uris []string
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return uris, true
}

type tool struct {
	tool    mcp.Tool
	handler mcp.ToolHandler
}

func inputTools() []tool {
	askName := map[string]mcp.InputRequest{"user_name": elicit("What is your name?", "name")}
	return []tool{
		{mcp.Tool{Name: "test_input_required_result_elicitation", Description: "Asks the user's name, then greets them", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// A missing or wrong answer is asked for again.
				name, ok := elicited(req.InputResponses["user_name"], "name")
				if !ok {
					return mcp.InputRequired(askName, ""), nil
				}
				return mcp.TextResult("Hello, " + name + "!"), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_sampling", Description: "Asks the client's model a question, then returns its answer", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				text, ok := sampled(req.InputResponses["capital_question"])
				if !ok {
					return mcp.InputRequired(map[string]mcp.InputRequest{"capital_question": sample("What is the capital of France?", 100)}, ""), nil
				}
				return mcp.TextResult("The model answered: " + text), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_list_roots", Description: "Asks for the client's roots, then lists them", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				uris, ok := roots(req.InputResponses["client_roots"])
				if !ok {
					return mcp.InputRequired(map[string]mcp.InputRequest{"client_roots": listRoots}, ""), nil
				}
				return mcp.TextResult("The client's roots: " + strings.Join(uris, ", ")), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_request_state", Description: "Asks for a confirmation with a request state, then checks the state", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				confirm := map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create", Params: map[string]any{
					"message": "Please confirm", "requestedSchema": map[string]any{"type": "object",
						"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}}}}
				if _, ok := elicited(req.InputResponses["confirm"], "ok"); !ok || req.RequestState != "awaiting-confirmation" {
					return mcp.InputRequired(confirm, "awaiting-confirmation"), nil
				}
				return mcp.TextResult("state-ok: confirmed"), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_multiple_inputs", Description: "Asks for a name, a greeting from the model and the roots at once", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				name, okName := elicited(req.InputResponses["user_name"], "name")
				greeting, okGreeting := sampled(req.InputResponses["greeting"])
				uris, okRoots := roots(req.InputResponses["client_roots"])
				if !okName || !okGreeting || !okRoots || req.RequestState != "multiple-inputs" {
					return mcp.InputRequired(map[string]mcp.InputRequest{
						"user_name":    elicit("What is your name?", "name"),
						"greeting":     sample("Generate a greeting", 50),
						"client_roots": listRoots,
					}, "multiple-inputs"), nil
				}
				return mcp.TextResult(fmt.Sprintf("%s, %s (roots: %s)", greeting, name, strings.Join(uris, ", "))), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_multi_round", Description: "Asks for a name, then a colour, then answers", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				step1 := map[string]mcp.InputRequest{"step1": elicit("Step 1: What is your name?", "name")}
				// The state carries what the rounds before gathered; the
				// package makes sure the client did not change it.
				if name, ok := strings.CutPrefix(req.RequestState, "round-2:"); ok {
					color, ok := elicited(req.InputResponses["step2"], "color")
					if !ok {
						return mcp.InputRequired(map[string]mcp.InputRequest{"step2": elicit("Step 2: What is your favorite color?", "color")}, req.RequestState), nil
					}
					return mcp.TextResult(name + " likes " + color), nil
				}
				name, ok := elicited(req.InputResponses["step1"], "name")
				if !ok || req.RequestState != "round-1" {
					return mcp.InputRequired(step1, "round-1"), nil
				}
				return mcp.InputRequired(map[string]mcp.InputRequest{"step2": elicit("Step 2: What is your favorite color?", "color")}, "round-2:"+name), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_tampered_state", Description: "Asks for input with a request state; a changed state is refused", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				if _, ok := elicited(req.InputResponses["user_name"], "name"); !ok || req.RequestState != "untampered" {
					return mcp.InputRequired(askName, "untampered"), nil
				}
				return mcp.TextResult("state verified"), nil
			}},
		{mcp.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only for the input the client declared it can give", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				var caps map[string]json.RawMessage
				json.Unmarshal(req.ClientCapabilities, &caps)
				ask := map[string]mcp.InputRequest{}
				if _, ok := caps["elicitation"]; ok {
					ask["user_name"] = elicit("What is your name?", "name")
				}
				if _, ok := caps["sampling"]; ok {
					ask["greeting"] = sample("Generate a greeting", 50)
				}
				if _, ok := caps["roots"]; ok {
					ask["client_roots"] = listRoots
				}
				if len(req.InputResponses) > 0 || len(ask) == 0 {
					return mcp.TextResult(fmt.Sprintf("got %d answers", len(req.InputResponses))), nil
				}
				return mcp.InputRequired(ask, ""), nil
			}},
		// The legacy scenarios (tools-call-sampling, tools-call-elicitation,
		// elicitation-sep1034-defaults, elicitation-sep1330-enums): the same
		// mcp.InputRequired, which the package turns into requests of the
		// server's own on the call's stream for clients of earlier revisions.
		{mcp.Tool{Name: "test_sampling", Description: "Asks the client's model the prompt",
			InputSchema: mcp.ObjectSchema(map[string]any{"prompt": map[string]any{"type": "string"}}, "prompt")},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				var in struct{ Prompt string }
				req.Bind(&in)
				text, ok := sampled(req.InputResponses["answer"])
				if !ok {
					return mcp.InputRequired(map[string]mcp.InputRequest{"answer": sample(in.Prompt, 100)}, ""), nil
				}
				return mcp.TextResult("LLM response: " + text), nil
			}},
		{mcp.Tool{Name: "test_elicitation", Description: "Asks the user for a username and an email address",
			InputSchema: mcp.ObjectSchema(map[string]any{"message": map[string]any{"type": "string"}}, "message")},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				var in struct{ Message string }
				req.Bind(&in)
				answer, ok := req.InputResponses["user"]
				if !ok {
					return mcp.InputRequired(map[string]mcp.InputRequest{"user": {Method: "elicitation/create", Params: map[string]any{
						"message": in.Message,
						"requestedSchema": map[string]any{"type": "object", "required": []string{"username", "email"}, "properties": map[string]any{
							"username": map[string]any{"type": "string", "description": "User's response"},
							"email":    map[string]any{"type": "string", "description": "User's email address"},
						}},
					}}}, ""), nil
				}
				return mcp.TextResult("User response: " + string(answer)), nil
			}},
		{mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Asks the user with a default for every primitive type", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				answer, ok := req.InputResponses["defaults"]
				if !ok {
					return mcp.InputRequired(map[string]mcp.InputRequest{"defaults": {Method: "elicitation/create", Params: map[string]any{
						"message": "Please review the defaults",
						"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
							"name":     map[string]any{"type": "string", "default": "John Doe"},
							"age":      map[string]any{"type": "integer", "default": 30},
							"score":    map[string]any{"type": "number", "default": 95.5},
							"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
							"verified": map[string]any{"type": "boolean", "default": true},
						}},
					}}}, ""), nil
				}
				return mcp.TextResult("Elicitation completed: " + string(answer)), nil
			}},
		{mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Asks the user with each kind of enum", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				answer, ok := req.InputResponses["enums"]
				if !ok {
					options := func(titles ...string) []any {
						var out []any
						for i, t := range titles {
							out = append(out, map[string]any{"const": fmt.Sprintf("value%d", i+1), "title": t})
						}
						return out
					}
					return mcp.InputRequired(map[string]mcp.InputRequest{"enums": {Method: "elicitation/create", Params: map[string]any{
						"message": "Please choose",
						"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
							"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
							"titledSingle":   map[string]any{"type": "string", "oneOf": options("First Option", "Second Option", "Third Option")},
							"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
								"enumNames": []string{"Option One", "Option Two", "Option Three"}},
							"untitledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
							"titledMulti":   map[string]any{"type": "array", "items": map[string]any{"anyOf": options("First Choice", "Second Choice", "Third Choice")}},
						}},
					}}}, ""), nil
				}
				return mcp.TextResult("Elicitation completed: " + string(answer)), nil
			}},
		{mcp.Tool{Name: "test_reconnection", Description: "Closes its stream mid-call; the result comes once the client resumes it (SEP-1699)", InputSchema: noArgs},
			func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// The client reconnects with GET and Last-Event-ID after
				// the retry interval; what the call sends meanwhile is kept.
				req.CloseStream()
				if err := sleep(ctx, 100*time.Millisecond); err != nil {
					return nil, err
				}
				return mcp.TextResult("Reconnection test completed"), nil
			}},
		{mcp.Tool{Name: "test_streaming_elicitation", Description: "Asks the user for input, in the result rather than as a request on the stream", InputSchema: noArgs},
			func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
				// At revision 2026-07-28 the package has no way to send
				// the client a request of its own: the input request
				// goes out as the call's InputRequiredResult.
				req.Progress(50, 100, "asking for input")
				if name, ok := elicited(req.InputResponses["answer"], "answer"); ok {
					return mcp.TextResult("Streaming complete: " + name), nil
				}
				return mcp.InputRequired(map[string]mcp.InputRequest{"answer": elicit("Please answer", "answer")}, ""), nil
			}},
	}
}
