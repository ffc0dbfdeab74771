package pack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Platform is a target, in Go's names: OS is darwin, linux or windows; Arch
// is amd64, arm64, or "all" for a macOS universal binary.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// ParsePlatform reads "OS/ARCH" or "OS_ARCH".
func ParsePlatform(s string) (Platform, error) {
	os, arch, ok := strings.Cut(strings.Replace(s, "/", "_", 1), "_")
	p := Platform{os, arch}
	if !ok || !p.known() {
		return p, fmt.Errorf("%q is not a platform; use OS/ARCH with OS darwin, linux or windows and ARCH amd64 or arm64 (or darwin/all)", s)
	}
	return p, nil
}

func (p Platform) known() bool {
	switch p.OS {
	case "linux", "windows":
		return p.Arch == "amd64" || p.Arch == "arm64"
	case "darwin":
		return p.Arch == "amd64" || p.Arch == "arm64" || p.Arch == "all"
	}
	return false
}

// exe is the file name of program name on p.
func (p Platform) exe(name string) string {
	if p.OS == "windows" {
		return name + ".exe"
	}
	return name
}

// Binaries are one program's executables, by platform.
type Binaries map[Platform][]byte

// MainPackage returns the main package path that Go recorded in the first
// of the binaries (by platform name) that has one 'go install' can fetch,
// which starts with a domain; or "".
func (bins Binaries) MainPackage() string {
	for _, p := range slices.SortedFunc(maps.Keys(bins), func(a, b Platform) int { return strings.Compare(a.String(), b.String()) }) {
		if bi, err := buildinfo.Read(bytes.NewReader(bins[p])); err == nil && strings.Contains(strings.Split(bi.Path, "/")[0], ".") {
			return bi.Path
		}
	}
	return ""
}

// Host returns the running executable, for this machine's platform.
func Host() (Binaries, error) {
	p := Platform{runtime.GOOS, runtime.GOARCH}
	if !p.known() {
		return nil, fmt.Errorf("this machine (%s) is not a platform bundles are made for", p)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the running mcpship: %w", err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		return nil, err
	}
	return Binaries{p: data}, nil
}

// Files reads the executables at the given paths.
func Files(paths map[Platform]string) (Binaries, error) {
	bins := Binaries{}
	for p, file := range paths {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("the %s binary: %w", p, err)
		}
		bins[p] = data
	}
	return bins, nil
}

// targetRE matches the end of the name of a GoReleaser build directory,
// such as "mcpship_linux_amd64_v1", "app_darwin_arm64_v8.0" or
// "app_darwin_all".
var targetRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`_(darwin|linux|windows)_(amd64|arm64|all)(_[^_]+)?$`)
})

// Dist finds program name in a GoReleaser dist directory, where each build
// target has a directory ID_OS_ARCH[_VARIANT] holding the binary. It is
// written during the build, so it can be read from a build hook, before
// GoReleaser writes artifacts.json. Targets other than darwin, linux and
// windows on amd64 and arm64 are left out.
func Dist(dir, name string) (Binaries, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the GoReleaser dist directory: %w", err)
	}
	bins := Binaries{}
	from := map[Platform]string{}
	for _, e := range entries {
		m := targetRE().FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		p := Platform{m[1], m[2]}
		file := filepath.Join(dir, e.Name(), p.exe(name))
		data, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue // another build's directory
		}
		if err != nil {
			return nil, err
		}
		if prev, dup := from[p]; dup {
			return nil, fmt.Errorf("%s and %s both hold %s for %s; give the binaries with --binary instead", prev, file, name, p)
		}
		from[p], bins[p] = file, data
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("no build of %q in %s: it holds no directory NAME_OS_ARCH with %s in it; run GoReleaser first, or check the binary's name", name, dir, name)
	}
	return bins, nil
}

// archiveRE matches the end of a release archive's name, as GoReleaser's
// "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" gives it.
var archiveRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`_(darwin|linux|windows)_(amd64|arm64|all)\.(tar\.gz|zip)$`)
})

// Release takes program name out of the release archives in dir (one per
// platform, named ..._OS_ARCH.tar.gz or .zip), after checking each archive
// against the SHA-256 sums in dir/checksums.txt. An archive not listed
// there, or whose sum differs, is an error.
func Release(dir, name string) (Binaries, error) {
	sumsFile := filepath.Join(dir, "checksums.txt")
	sums, err := readChecksums(sumsFile)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	bins := Binaries{}
	for _, e := range entries {
		m := archiveRE().FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil {
			continue
		}
		p := Platform{m[1], m[2]}
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		want, ok := sums[e.Name()]
		if !ok {
			return nil, fmt.Errorf("%s is not listed in %s, so it cannot be verified", file, sumsFile)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("checksum mismatch: %s has SHA-256 %s, but %s says %s; download the release again", file, got, sumsFile, want)
		}
		if _, dup := bins[p]; dup {
			return nil, fmt.Errorf("%s holds two archives for %s", dir, p)
		}
		exe, err := extract(e.Name(), data, p.exe(name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		bins[p] = exe
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("no release archives in %s (NAME_VERSION_OS_ARCH.tar.gz or .zip)", dir)
	}
	return bins, nil
}

// readChecksums reads a checksums.txt of "HEX  NAME" lines, as sha256sum
// and GoReleaser write them; also with one space (BSD's sha256 -r) or "*"
// before the name (binary mode). Blank lines are skipped.
func readChecksums(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("release archives are verified against their checksums.txt: %w", err)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimLeft(name, " "), "*")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("%s:%d: not a line \"SHA256  FILE\"", file, n)
		}
		sums[name] = strings.ToLower(sum)
	}
	return sums, sc.Err()
}

// extract returns the file named exe (at any depth) from the archive.
func extract(archive string, data []byte, exe string) ([]byte, error) {
	var found [][]byte
	if strings.HasSuffix(archive, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if path.Base(f.Name) != exe || f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			found = append(found, b)
		}
	} else {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if h.Typeflag != tar.TypeReg || path.Base(h.Name) != exe {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("the archive holds no %s", exe)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("the archive holds %d files named %s", len(found), exe)
}

// forBundles gives the binaries one bundle each: for macOS, one universal
// binary, joined from the arm64 and amd64 ones unless bins has a universal
// one already; each other platform as it is.
func (bins Binaries) forBundles() (Binaries, error) {
	out := Binaries{}
	for p, b := range bins {
		if p.OS != "darwin" {
			out[p] = b
		}
	}
	arm, hasArm := bins[Platform{"darwin", "arm64"}]
	amd, hasAmd := bins[Platform{"darwin", "amd64"}]
	all := Platform{"darwin", "all"}
	switch {
	case bins[all] != nil:
		out[all] = bins[all]
	case hasArm && hasAmd:
		fat, err := universal(arm, amd)
		if err != nil {
			return nil, fmt.Errorf("joining the darwin binaries: %w", err)
		}
		out[all] = fat
	case hasArm:
		out[Platform{"darwin", "arm64"}] = arm
	case hasAmd:
		out[Platform{"darwin", "amd64"}] = amd
	}
	return out, nil
}

// platforms returns the keys of bins in order.
func (bins Binaries) platforms() []Platform {
	ps := make([]Platform, 0, len(bins))
	for p := range bins {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Platform) int { return strings.Compare(a.String(), b.String()) })
	return ps
}

// DistVersion returns the version GoReleaser recorded in dir/metadata.json,
// which it writes before building.
func DistVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return "", fmt.Errorf("no version given, and none recorded by GoReleaser: %w", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		return "", fmt.Errorf("%s holds no version; give --version", filepath.Join(dir, "metadata.json"))
	}
	return meta.Version, nil
}
