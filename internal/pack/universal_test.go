package pack

import (
	"bytes"
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildDarwin cross-compiles a tiny program for darwin/arch.
func buildDarwin(t *testing.T, arch string) []byte {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\nfunc main() { println(\"hi\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "hi")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, src)
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for darwin/%s: %v\n%s", arch, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUniversal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two darwin binaries")
	}
	arm, amd := buildDarwin(t, "arm64"), buildDarwin(t, "amd64")
	fat, err := universal(arm, amd)
	if err != nil {
		t.Fatal(err)
	}
	again, err := universal(amd, arm)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fat, again) {
		t.Error("the order of the arguments changed the universal binary")
	}
	ff, err := macho.NewFatFile(bytes.NewReader(fat))
	if err != nil {
		t.Fatalf("debug/macho cannot read the universal binary: %v", err)
	}
	want := map[macho.Cpu][]byte{macho.CpuArm64: arm, macho.CpuAmd64: amd}
	if len(ff.Arches) != 2 {
		t.Fatalf("%d architectures, want 2", len(ff.Arches))
	}
	for _, a := range ff.Arches {
		if a.Offset%(1<<fatAlign) != 0 {
			t.Errorf("%v slice at %d, not 16 KiB aligned", a.Cpu, a.Offset)
		}
		if !bytes.Equal(fat[a.Offset:a.Offset+a.Size], want[a.Cpu]) {
			t.Errorf("%v slice differs from the executable given", a.Cpu)
		}
	}
	if _, err := universal(arm, arm); err == nil {
		t.Error("two arm64 slices: no error")
	}
	if _, err := universal([]byte("#!/bin/sh\n")); err == nil {
		t.Error("a script: no error")
	}
}
