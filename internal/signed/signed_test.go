package signed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// TestSealOpen checks that a sealed value opens under the key, label and
// bindings it was sealed with, and under nothing else.
func TestSealOpen(t *testing.T) {
	key := []byte("key")
	s := Seal(key, "label\x00", "payload", "tool")
	if v, ok := Open(key, "label\x00", s, "tool"); !ok || v != "payload" {
		t.Fatalf("Open(Seal) = %q, %v; want payload, true", v, ok)
	}
	value, mac, _ := strings.Cut(s, ".")
	for name, bad := range map[string]func() (string, bool){
		"other key":     func() (string, bool) { return Open([]byte("other"), "label\x00", s, "tool") },
		"other label":   func() (string, bool) { return Open(key, "other\x00", s, "tool") },
		"other binding": func() (string, bool) { return Open(key, "label\x00", s, "tool2") },
		"no binding":    func() (string, bool) { return Open(key, "label\x00", s) },
		"changed value": func() (string, bool) { return Open(key, "label\x00", value+"x."+mac, "tool") },
		"no MAC":        func() (string, bool) { return Open(key, "label\x00", value, "tool") },
	} {
		if _, ok := bad(); ok {
			t.Errorf("%s: opened", name)
		}
	}
}

// TestSealBindsWithZeroBytes pins how the MAC is made: the bindings are
// each followed by a zero byte, so that "ab"+"c" and "a"+"bc" differ, and
// a seal without bindings is the HMAC of the label and the value alone
// (session ids already issued keep verifying).
func TestSealBindsWithZeroBytes(t *testing.T) {
	key := []byte("k")
	if Seal(key, "l", "v", "ab", "c") == Seal(key, "l", "v", "a", "bc") {
		t.Error("bindings ab,c and a,bc give the same MAC")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("lt\x00v"))
	if got, want := Seal(key, "l", "v", "t"), "v."+base64.RawURLEncoding.EncodeToString(m.Sum(nil)); got != want {
		t.Errorf("Seal with a binding = %q, want %q", got, want)
	}
	m = hmac.New(sha256.New, key)
	m.Write([]byte("lv"))
	if got, want := Seal(key, "l", "v"), "v."+base64.RawURLEncoding.EncodeToString(m.Sum(nil)); got != want {
		t.Errorf("Seal without bindings = %q, want %q", got, want)
	}
}
