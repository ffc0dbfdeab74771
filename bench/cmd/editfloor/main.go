// Command editfloor does the least any safe config edit must do, as the
// floor that `mcpship init` and `mcpship remove` are measured against:
// read the file, write a backup copy, write a temp file, fsync it, rename
// it over the file, and fsync the directory.
//
//	editfloor FILE BACKUP
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: editfloor FILE BACKUP")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "editfloor:", err)
		os.Exit(1)
	}
}

func run(file, backup string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := os.WriteFile(backup, data, 0o600); err != nil {
		return err
	}
	tmp := file + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(file))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
