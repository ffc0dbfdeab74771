// Package loopback tells whether a URL's host is this machine's loopback
// address, the one place plain http is allowed.
package loopback

import (
	"net/netip"
	"strings"
)

// Host reports whether host (a URL's host name, without port or
// brackets) is this machine's loopback address: an IP address in
// 127.0.0.0/8 or ::1 (also written as an IPv4-mapped IPv6 address), or
// the name localhost. Any other name, such as 127.0.0.1.example.com, may
// resolve anywhere, so it is not.
//
// Plain http is allowed only to a loopback address: for a remote entry
// (installer.Entry), an MCP registry, and the remote servers it lists.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
