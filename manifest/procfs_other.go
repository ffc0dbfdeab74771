//go:build !linux && !windows

package manifest

// hasLiveMember cannot tell zombies apart without /proc: it reports the
// group alive whenever it can still be signalled.
func hasLiveMember(int) bool { return true }
