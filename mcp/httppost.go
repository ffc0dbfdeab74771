package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// probe is what the handler reads of a message before the session does:
// the method and id the session decodes, and the members of the params
// that route a request (see probeParams).
type probe struct {
	Method string
	ID     json.RawMessage
	Params struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
}

// id returns the message's id if it is a legal one, else the null id.
func (p *probe) id() msgID {
	if validID(p.ID) {
		return msgID{raw: string(p.ID)}
	}
	return nullID
}

// probeParams decodes the members of m's params that the handler reads,
// when it needs them: always for a request of revision 2026-07-28 (its
// header says so), else only when the params may have a _meta member,
// whose protocol version makes a request modern. The params of most
// legacy requests are so left to the session alone.
func (p *probe) probeParams(m *message, headerModern bool) {
	if headerModern || mayHaveMeta(m.Params) {
		json.Unmarshal(m.Params, &p.Params) // what does not decode is the session's to answer
	}
}

// mayHaveMeta reports whether json.Unmarshal may find a member "_meta" in
// params: it matches names without regard to case, and the folds of
// "_meta" are its ASCII cases alone (no other rune folds to one of its
// letters), unless an escape spells the name.
func mayHaveMeta(params []byte) bool {
	if bytes.IndexByte(params, '\\') >= 0 {
		return true
	}
	for b := params; ; {
		i := bytes.Index(b, []byte(`"_`))
		if i < 0 {
			return false
		}
		b = b[i+2:]
		if len(b) >= 5 && bytes.EqualFold(b[:5], []byte(`meta"`)) {
			return true
		}
	}
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, nullID, CodeInvalidRequest,
			fmt.Sprintf("unsupported Content-Type %q: send a JSON-RPC message as application/json", r.Header.Get("Content-Type")))
		return
	}
	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !sseOK {
		writeError(w, http.StatusNotAcceptable, nullID, CodeInvalidRequest,
			"not acceptable: the Accept header must list application/json and text/event-stream")
		return
	}
	body, status, msg := h.readBody(w, r)
	if status != 0 {
		writeError(w, status, nullID, CodeInvalidRequest, msg)
		return
	}
	// The body is decoded once, as the session reads it; the handler
	// routes the request by what that gives.
	d := decodeMessage(body)
	var syntax *json.SyntaxError
	if err := d.err; errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || (err != nil && len(body) == 0) {
		writeError(w, http.StatusBadRequest, nullID, CodeParseError, "parse error: "+err.Error())
		return
	}
	batch := len(body) > 0 && body[0] == '['
	headerV := r.Header.Get(headerVersion)
	headerModern := headerV != "" && !slices.Contains(legacyVersions, headerV)
	var p probe
	if !batch {
		p.Method, p.ID = d.m.Method, d.m.ID
		p.probeParams(&d.m, headerModern)
	}
	bodyV := p.Params.Meta.ProtocolVersion
	modern := !batch && ((bodyV != "" && !slices.Contains(legacyVersions, bodyV)) ||
		(headerModern && p.Method != "initialize"))
	if modern {
		h.postModern(w, r, body, d, &p, jsonOK, sseOK)
		return
	}
	h.postLegacy(w, r, body, d, &p, batch, jsonOK, sseOK)
}

// readBody reads the body up to the limit; on failure it returns the
// status and message to answer with.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	max := h.opts.MaxBodyBytes
	tooLarge := fmt.Sprintf("request body too large: the limit is %d bytes", max)
	if r.ContentLength > max {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	size := 512
	if r.ContentLength > 0 {
		size = int(r.ContentLength) + 1
	}
	buf := make([]byte, 0, size)
	body, err := readAll(http.MaxBytesReader(w, r.Body, max), buf)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	case err != nil:
		return nil, http.StatusBadRequest, "reading the request body: " + err.Error()
	}
	return body, 0, ""
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// accepts reports whether an Accept header admits JSON and event
// streams. No header, or */*, admits both.
func accepts(values []string) (jsonOK, sseOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

// postModern serves a request of revision 2026-07-28: it checks the
// headers against the body and answers it in a session of its own.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, body []byte, d *decoded, p *probe, jsonOK, sseOK bool) {
	id := p.id()
	headerV, bodyV := r.Header.Get(headerVersion), p.Params.Meta.ProtocolVersion
	switch {
	case bodyV != "" && headerV != bodyV:
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch,
			fmt.Sprintf("header mismatch: MCP-Protocol-Version header %q does not match _meta[%q] %q", headerV, metaProtocolVersion, bodyV))
		return
	case !slices.Contains(modernVersions, headerV):
		writeJSON(w, http.StatusBadRequest, newResponse(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": headerV}}))
		return
	}
	if p.ID == nil {
		// A notification: this revision defines none over HTTP, nor
		// headers for them; it is accepted.
	} else if m := r.Header.Get(headerMethod); m != p.Method {
		msg := fmt.Sprintf("header mismatch: Mcp-Method header %q does not match the body's method %q", m, p.Method)
		if m == "" {
			msg = fmt.Sprintf("header mismatch: the Mcp-Method header is missing; send Mcp-Method: %s", p.Method)
		}
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if msg := checkName(r.Header, p); msg != "" && p.ID != nil {
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if msg := h.checkParams(r.Context(), r.Header, body, p); msg != "" && p.ID != nil {
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if p.Method == "subscriptions/listen" && p.ID != nil && !sseOK {
		writeError(w, http.StatusNotAcceptable, id, CodeInvalidRequest,
			"not acceptable: subscriptions/listen answers with an event stream; list text/event-stream in Accept")
		return
	}
	release, ok := h.admit(w, p)
	if !ok {
		return
	}
	defer release()
	ss := newSessionCtx(h.srv, r.Context())
	ss.teardown = h.done
	defer ss.cancel()
	defer context.AfterFunc(h.stop, ss.cancel)()
	ss.env.stateless = true
	ss.queue.maxCalls = math.MaxInt
	ss.env.inputKey = h.stateKey
	ss.env.header = r.Header
	ex := newExchange(h, w, true, jsonOK, sseOK)
	if c := ss.dispatchMessage(body, d, ex); c != nil {
		ss.run(c)
	}
	ex.wait(r.Context())
	ex.finish()
}

// checkName compares the Mcp-Name header with the name or uri of the
// request's params, for the methods that have one.
func checkName(hdr http.Header, p *probe) string {
	var field json.RawMessage
	switch methods[p.Method].nameParam {
	case "name":
		field = p.Params.Name
	case "uri":
		field = p.Params.URI
	default:
		return ""
	}
	var want string
	if json.Unmarshal(field, &want) != nil {
		return "" // the session answers a name that is not a string
	}
	vals, sent := hdr[http.CanonicalHeaderKey(headerName)]
	if !sent || len(vals) == 0 {
		return fmt.Sprintf("header mismatch: the Mcp-Name header is missing; send Mcp-Name: %s", want)
	}
	got, err := headerValue(strings.TrimSpace(vals[0]))
	if err != nil {
		return "header mismatch: the Mcp-Name header " + err.Error()
	}
	if got != want {
		return fmt.Sprintf("header mismatch: Mcp-Name header %q does not match the body's %q", got, want)
	}
	return ""
}

// admit takes a call slot for a tools/call; when none is free it answers
// 503 and returns false.
func (h *HTTPHandler) admit(w http.ResponseWriter, p *probe) (release func(), ok bool) {
	if p.Method != "tools/call" {
		return func() {}, true
	}
	select {
	case h.calls <- struct{}{}:
		return func() { <-h.calls }, true
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, p.id(), CodeInternalError,
			fmt.Sprintf("server busy: %d tool calls are running, the most it runs at once; try again shortly", h.opts.MaxConcurrentCalls))
		return nil, false
	}
}

// postLegacy serves a message of revisions 2025-03-26 to 2025-11-25 in
// its session, minting one at initialize.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, body []byte, d *decoded, p *probe, batch, jsonOK, sseOK bool) {
	id := p.id()
	if v := r.Header.Get(headerVersion); v != "" && p.Method != "initialize" && !slices.Contains(legacyVersions, v) {
		writeJSON(w, http.StatusBadRequest, newResponse(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": v}}))
		return
	}
	sid := r.Header.Get(headerSessionID)
	var hs *httpSession
	switch {
	case sid != "":
		if hs = h.use(w, id, sid); hs == nil {
			return
		}
	case !batch && p.Method == "initialize":
		if hs = h.newSession(); hs == nil {
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, id, CodeInternalError,
				fmt.Sprintf("too many sessions: all %d that this server keeps are in use; try again later", h.opts.MaxSessions))
			return
		}
	default:
		writeError(w, http.StatusBadRequest, id, CodeInvalidRequest,
			"bad request: the Mcp-Session-Id header is missing; send initialize first and then the session id it returns, or (revision 2026-07-28) carry _meta and the MCP-Protocol-Version header")
		return
	}
	release, ok := h.admit(w, p)
	if !ok {
		if sid == "" {
			h.discard(hs)
		} else {
			h.unuse(hs)
		}
		return
	}
	detached := false
	defer func() {
		if !detached {
			release()
		}
	}()
	ex := newExchange(h, w, false, jsonOK, sseOK)
	hs.dispatch.Lock()
	if sid != "" && sseOK && hs.ss.version == resumableVersion {
		ex.owner = r
		hs.resume.add(ex, hs)
	}
	hs.ss.env.header = r.Header
	c := hs.ss.dispatchMessage(body, d, ex)
	initialized := hs.ss.initialized
	hs.dispatch.Unlock()
	if sid == "" {
		var err error
		if initialized {
			hs.id, hs.expires, err = h.mintID(hs.ss)
			hs.dispatch.Lock()
			hs.ss.env.sid = hs.id
			hs.dispatch.Unlock()
		}
		if !initialized {
			h.discard(hs)
		} else if err != nil {
			h.discard(hs)
			ex.ended = true // the reply is dropped: the session was not kept
			writeError(w, http.StatusOK, id, CodeInvalidParams, "invalid params: "+err.Error())
			return
		} else if h.add(hs) {
			w.Header().Set(headerSessionID, hs.id)
		} else {
			ex.ended = true // the reply is dropped: the session was not kept
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, id, CodeInternalError,
				fmt.Sprintf("too many sessions: all %d that this server keeps are in use; try again later", h.opts.MaxSessions))
			return
		}
	}
	if c != nil && ex.hs != nil {
		// The response may end before the call (the client went away, or
		// the call closed its stream), which runs on.
		go hs.ss.run(c)
	} else if c != nil {
		hs.ss.run(c)
	}
	ex.wait(r.Context())
	if detached = ex.detach(r, release); detached {
		h.unuse(hs)
		return
	}
	if initialized || sid != "" {
		// Before the answer, so that the client's next request finds the
		// session idle, as it is.
		h.unuse(hs)
	}
	ex.finish()
}
