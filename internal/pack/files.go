package pack

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/sjson"

	"github.com/mcpship/mcpship/internal/mcpb"
)

// manifestFiles returns the manifest and the author's programs for the
// bundle of platform p. A bundled program goes to server/bin, and the
// commands that run it are rewritten to ./bin/NAME, which mcpship resolves
// beside the manifest.
func manifestFiles(o Options, srv *server, p Platform) ([]mcpb.File, error) {
	data := srv.manifest
	var files []mcpb.File
	progs := make([]string, 0, len(srv.programs))
	for prog := range srv.programs {
		progs = append(progs, prog)
	}
	sort.Strings(progs)
	used := map[string]bool{}
	for _, prog := range progs {
		exe, err := program(filepath.Dir(o.Manifest), o.Programs[prog], p)
		if err != nil {
			return nil, fmt.Errorf("--program %s: %w", prog, err)
		}
		// Programs in different directories may share a name (./bin/x,
		// ../x): the second becomes x_2.
		base := strings.TrimSuffix(path.Base(filepath.ToSlash(prog)), ".exe")
		name := "bin/" + p.exe(base)
		for i := 2; used[name]; i++ {
			name = "bin/" + p.exe(fmt.Sprintf("%s_%d", base, i))
		}
		used[name] = true
		files = append(files, mcpb.File{Name: "server/" + name, Data: exe, Mode: 0o755})
		for _, i := range srv.programs[prog] {
			if data, err = sjson.SetBytes(data, fmt.Sprintf("tools.%d.command.0", i), "./"+name); err != nil {
				return nil, fmt.Errorf("rewrite the manifest's command for %s: %w", prog, err)
			}
		}
	}
	return append(files, mcpb.File{Name: "server/mcpship.json", Data: data}), nil
}

// program reads the author's program for p from pattern, relative to dir.
func program(dir, pattern string, p Platform) ([]byte, error) {
	read := func(arch string) ([]byte, string, error) {
		exe := ""
		if p.OS == "windows" {
			exe = ".exe"
		}
		file := strings.NewReplacer("{os}", p.OS, "{arch}", arch, "{exe}", exe).Replace(pattern)
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		data, err := os.ReadFile(file)
		return data, file, err
	}
	if p.OS == "darwin" && p.Arch == "all" {
		if data, _, err := read("all"); err == nil {
			return data, nil
		}
		arm, armFile, err1 := read("arm64")
		amd, amdFile, err2 := read("amd64")
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("the macOS bundle needs a universal binary or both arm64 and amd64 ones (%s, %s): %w", armFile, amdFile, err)
		}
		return universal(arm, amd)
	}
	data, file, err := read(p.Arch)
	if err != nil {
		return nil, fmt.Errorf("missing the %s binary %s: %w", p, file, err)
	}
	return data, nil
}
