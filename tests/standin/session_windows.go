package main

import "syscall"

// newSession has no Windows counterpart; the child stays in the tree.
func newSession() *syscall.SysProcAttr { return nil }
