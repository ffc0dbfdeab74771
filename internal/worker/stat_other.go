//go:build !linux && !darwin

package worker

import "os"

// sysStat adds nothing where the standard library gives no inode or
// change time in a portable form: size, mode and mtime tell changes.
func sysStat(os.FileInfo) string { return "" }
