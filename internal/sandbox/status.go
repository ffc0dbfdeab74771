package sandbox

import "fmt"

// Status says how a read-only program that may (network) or may not
// reach the network is confined here, for tools/list and doctor:
// "landlock-v7"; with what an older ABI leaves unconfined, as in
// "landlock-v3 (TCP not confined: needs ABI 4)"; or "none: " and why.
func Status(network bool) string {
	v, why := Available()
	if v == 0 {
		return "none: " + why
	}
	s := fmt.Sprintf("landlock-v%d", v)
	if v < 4 && !network {
		s += " (TCP not confined: needs ABI 4)"
	}
	return s
}

// Lacks says what the running kernel's Landlock ABI leaves unconfined
// that a later one confines, "" when nothing, for serve's log and
// doctor.
func Lacks() string {
	v, _ := Available()
	switch {
	case v == 0:
		return ""
	case v < 2:
		return "a file renamed or linked into the private TMPDIR from another folder (ABI 2), truncation (ABI 3), TCP (ABI 4), device ioctls (ABI 5), abstract unix sockets and signals (ABI 6)"
	case v < 3:
		return "truncation of existing files (ABI 3), TCP (ABI 4), device ioctls (ABI 5), abstract unix sockets and signals (ABI 6)"
	case v < 4:
		return "TCP connections and ports (ABI 4), device ioctls (ABI 5), abstract unix sockets and signals (ABI 6)"
	case v < 5:
		return "device ioctls (ABI 5), abstract unix sockets and signals (ABI 6)"
	case v < 6:
		return "abstract unix sockets and signals to processes outside the sandbox (ABI 6)"
	}
	return ""
}
