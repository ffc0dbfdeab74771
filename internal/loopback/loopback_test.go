package loopback

import "testing"

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.1.2.3": true, "127.255.255.254": true,
		"::1": true, "0:0:0:0:0:0:0:1": true, "::ffff:127.0.0.1": true, "::1%lo": true,
		"127.0.0.1.evil.example": false, "127.evil.example": false, "127.": false, "127.0.0.1.": false,
		"localhost.evil.example": false, "evil-localhost": false, "localhost.": false, "": false,
		"128.0.0.1": false, "10.0.0.1": false, "::2": false, "::ffff:10.0.0.1": false, "0.0.0.0": false, "::": false,
		"[::1]": false, "127.1": false, "0x7f.0.0.1": false, "2130706433": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
