package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/signed"
)

// minSessionKeyBytes is the shortest [HTTPOptions.SessionKey]: 32 bytes,
// the size of the HMAC-SHA256 output it keys.
const minSessionKeyBytes = 32

// maxSessionIDBytes bounds a signed session id, which a client sends in a
// header on every request: proxies refuse longer header lines (nginx's
// default buffer is 8 KiB).
const maxSessionIDBytes = 4096

// A signed session id carries the state a legacy session negotiated at
// initialize, so that any replica holding the key can serve the session:
//
//	1.PAYLOAD.MAC
//
// PAYLOAD is the base64url (unpadded) JSON of sessionState, MAC the
// base64url HMAC-SHA256 of "mcpship-session-1." + PAYLOAD under the key.
// The id is readable by whoever holds it (it holds what the client sent),
// but no one without the key can make or change one.
const (
	sessionIDPrefix = "1."
	sessionMACLabel = "mcpship-session-1."
)

// sessionState is what a signed session id carries.
type sessionState struct {
	Version string          `json:"v"`           // the revision initialize agreed on
	Caps    json.RawMessage `json:"c,omitempty"` // the client's capabilities
	Expires int64           `json:"x"`           // Unix milliseconds after which the id is refused
	Nonce   string          `json:"n"`           // makes every id unique
}

// mintID returns the id of a session that initialize has just set up: a
// random one, or without a key, or a signed one that carries its state.
func (h *HTTPHandler) mintID(ss *session) (id string, expires int64, err error) {
	var nonce [16]byte
	rand.Read(nonce[:])
	if h.opts.SessionKey == nil {
		return base64.RawURLEncoding.EncodeToString(nonce[:]), 0, nil
	}
	st := sessionState{Version: ss.version, Expires: time.Now().Add(h.opts.SessionLifetime).UnixMilli(),
		Nonce: base64.RawURLEncoding.EncodeToString(nonce[:12])}
	if len(ss.clientCaps) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, ss.clientCaps); err != nil {
			return "", 0, err
		}
		st.Caps = buf.Bytes()
	}
	payload, err := json.Marshal(st)
	if err != nil {
		return "", 0, err
	}
	id = sessionIDPrefix + signed.Seal(h.opts.SessionKey, sessionMACLabel, base64.RawURLEncoding.EncodeToString(payload))
	if len(id) > maxSessionIDBytes {
		return "", 0, fmt.Errorf("the client's capabilities (%d bytes) are too large to carry in a session id shared by replicas, whose limit is %d bytes", len(st.Caps), maxSessionIDBytes)
	}
	return id, st.Expires, nil
}

// verifyID returns the state a signed id carries if the key's MAC
// authenticates it and it has not expired.
func (h *HTTPHandler) verifyID(id string) (*sessionState, bool) {
	if h.opts.SessionKey == nil || len(id) > maxSessionIDBytes {
		return nil, false
	}
	rest, ok := strings.CutPrefix(id, sessionIDPrefix)
	if !ok {
		return nil, false
	}
	payload, ok := signed.Open(h.opts.SessionKey, sessionMACLabel, rest)
	if !ok {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, false
	}
	var st sessionState
	if json.Unmarshal(b, &st) != nil || !slices.Contains(legacyVersions, st.Version) || expired(st.Expires) {
		return nil, false
	}
	return &st, true
}

// expired reports whether a session that expires at the Unix millisecond
// x (0 for never) has.
func expired(x int64) bool { return x != 0 && time.Now().UnixMilli() >= x }
