package main

import "syscall"

// newSession has no Windows counterpart; the child stays in the tree.
func newSession() *syscall.SysProcAttr { return nil }

// execve has no Windows counterpart.
func execve(path string, argv, env []string) error { return syscall.EWINDOWS }
