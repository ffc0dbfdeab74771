//go:build !unix

package spill

// alive reports true: without a cheap check, a folder another process
// left is never removed here.
func alive(int) bool { return true }
