package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSON-RPC 2.0 and MCP error codes.
const (
	CodeParseError     = -32700 // the line is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON, but not a valid request
	CodeMethodNotFound = -32601 // no such method
	CodeInvalidParams  = -32602 // bad params: unknown tool, bad cursor, missing _meta
	CodeInternalError  = -32603 // the server failed, e.g. a handler panicked

	// CodeUnsupportedProtocolVersion answers a 2026-07-28 style request
	// whose protocol version this server does not speak.
	CodeUnsupportedProtocolVersion = -32022

	// CodeMissingClientCapability fails a request that needs a
	// capability the client did not declare; its Data should be
	// {"requiredCapabilities": {...}}, an object of the capabilities
	// missing. Over HTTP it is answered with 400.
	CodeMissingClientCapability = -32021

	// CodeResourceNotFound answers resources/read for a URI the server
	// does not have (or no longer has).
	CodeResourceNotFound = -32002
)

// Error is a JSON-RPC error object. A [ToolHandler] that returns one (or an
// error wrapping one) fails the call with it as a protocol error; any other
// error a handler returns becomes a [CallToolResult] with IsError set, for
// the model to read. [Client.Call] returns an error reply as an *Error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error implements the error interface: the code and the message.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// msgID is a JSON-RPC request id as it appeared on the wire: a JSON string or
// integer, kept verbatim so that the reply echoes it exactly. The zero id
// is absent.
type msgID struct{ raw string }

var nullID = msgID{raw: "null"}

// IsZero reports whether the id is absent (a notification).
func (id msgID) IsZero() bool { return id.raw == "" }

// String returns the id as JSON text.
func (id msgID) String() string { return id.raw }

// MarshalJSON implements [json.Marshaler].
func (id msgID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON implements [json.Unmarshaler], keeping the JSON text.
func (id *msgID) UnmarshalJSON(b []byte) error {
	id.raw = string(b)
	return nil
}

// key returns the id's JSON value as a map key, so that ids are compared
// by value, not spelling: "\u0078" and "x" are the same id, as are -0 and
// 0, while the string "1" and the integer 1 stay different. Ids with a
// fraction or an exponent (1.0, 1e0) are not legal (see validID), so no
// two spellings of a number need comparing beyond the sign of zero.
func (id msgID) key() idKey {
	if !strings.HasPrefix(id.raw, `"`) {
		if id.raw == "-0" {
			return idKey{value: "0"}
		}
		return idKey{value: id.raw}
	}
	var s string
	if json.Unmarshal([]byte(id.raw), &s) != nil {
		return idKey{value: id.raw} // no number starts with a quote
	}
	return idKey{str: true, value: s}
}

// idKey is the value of an ID: a string's text, or a number's digits.
type idKey struct {
	str   bool
	value string
}

// validID reports whether raw JSON is a legal request id: a string or an
// integer. JSON-RPC allows fractions, MCP does not; null is forbidden.
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}

// message is any JSON-RPC 2.0 message as read off the wire. Its Params
// point into the line read (see rawValue); the rest are copies.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  rawValue        `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// rawValue is a JSON value as it sits in the input that json.Unmarshal
// reads: unlike [json.RawMessage], it is not copied, so it is valid
// only as long as that input is. A request's params are, while it is
// dispatched; a call at the message cap then costs one copy fewer.
type rawValue []byte

func (r *rawValue) UnmarshalJSON(b []byte) error { *r = b; return nil }

// response is a reply written to the wire.
type response struct {
	JSONRPC string `json:"jsonrpc"`
	ID      msgID  `json:"id"`
	Result  any    `json:"result,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// notification is a server-to-client notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// request is a client-to-server request, as the Client writes it.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}
