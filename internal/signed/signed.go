// Package signed seals a value that a client carries and gives back, such
// as a session id or a request state, so that nobody makes one up or
// changes it: it goes out as VALUE.MAC, where MAC is the base64url
// (unpadded) HMAC-SHA256 of a label, the bindings (each followed by a
// zero byte) and VALUE under a key. The label keeps the values of one
// purpose from passing for those of another; a binding, such as the name
// of a tool, keeps a value made for one thing from being accepted for
// another.
package signed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Seal returns value.MAC.
func Seal(key []byte, label, value string, bind ...string) string {
	return value + "." + mac(key, label, value, bind)
}

// Open returns the value of a sealed one whose MAC authenticates it under
// key, label and bind.
func Open(key []byte, label, sealed string, bind ...string) (string, bool) {
	value, m, ok := strings.Cut(sealed, ".")
	if !ok || !hmac.Equal([]byte(m), []byte(mac(key, label, value, bind))) {
		return "", false
	}
	return value, true
}

func mac(key []byte, label, value string, bind []string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	for _, b := range bind {
		m.Write([]byte(b))
		m.Write([]byte{0})
	}
	m.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
