//go:build !windows

package main

import "syscall"

// newSession starts a process in a session (and process group) of its own.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// execve replaces the process image.
func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }
