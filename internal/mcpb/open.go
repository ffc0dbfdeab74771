package mcpb

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Limits cap what [Open] accepts from a bundle, against archives made to
// fill the disk (zip bombs). A zero field takes its default.
type Limits struct {
	// MaxFiles caps the entries of the archive: 20,000 by default.
	MaxFiles int
	// MaxBytes caps the size of the archive and, apart, the size of its
	// files unpacked: 1 GiB by default.
	MaxBytes int64
}

// DefaultLimits are the limits of a zero [Limits].
var DefaultLimits = Limits{MaxFiles: 20_000, MaxBytes: 1 << 30}

// maxManifest caps manifest.json.
const maxManifest = 1 << 20

// A Bundle is an .mcpb archive that [Open] has checked, ready to unpack.
type Bundle struct {
	Manifest *Manifest
	SHA256   string // of the archive, in lower-case hex

	f      *os.File
	zr     *zip.Reader
	limits Limits
}

// Open checks the bundle in the file name before anything in it is used:
//
//   - its SHA-256 against wantSHA256 (hex), unless wantSHA256 is "";
//   - every entry of the archive: a regular file or a directory (no
//     symbolic link or other kind), under a clean relative path that stays
//     inside the bundle (no "..", no absolute path, no backslash or drive
//     letter), not given twice, even in another case;
//   - the number of entries and their declared sizes against limits (nil
//     means [DefaultLimits]);
//   - manifest.json at the root, which must pass [Manifest.Check], name an
//     entry point that is in the archive, and list this platform if it
//     lists any.
//
// The error says which check failed. The caller closes the bundle.
func Open(name, wantSHA256 string, limits *Limits) (*Bundle, error) {
	l := DefaultLimits
	if limits != nil {
		if limits.MaxFiles > 0 {
			l.MaxFiles = limits.MaxFiles
		}
		if limits.MaxBytes > 0 {
			l.MaxBytes = limits.MaxBytes
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	b := &Bundle{f: f, limits: l}
	if err := b.open(name, wantSHA256); err != nil {
		f.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bundle) open(name, wantSHA256 string) error {
	fi, err := b.f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", name)
	}
	if fi.Size() > b.limits.MaxBytes {
		return fmt.Errorf("%s is %d bytes, over the limit of %d for a bundle", name, fi.Size(), b.limits.MaxBytes)
	}
	h := sha256.New()
	if _, err := io.Copy(h, b.f); err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	b.SHA256 = hex.EncodeToString(h.Sum(nil))
	if wantSHA256 != "" && !strings.EqualFold(wantSHA256, b.SHA256) {
		return fmt.Errorf("%s has SHA-256 %s, but %s was expected: the file is not the one described; nothing was installed", name, b.SHA256, strings.ToLower(wantSHA256))
	}
	b.zr, err = zip.NewReader(b.f, fi.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // checkEntries says which path
		return fmt.Errorf("%s is not a zip archive, as an .mcpb bundle must be: %v", name, err)
	}
	if err := b.checkEntries(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if b.Manifest, err = b.readManifest(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Close closes the bundle's file.
func (b *Bundle) Close() error { return b.f.Close() }

// checkEntries applies Open's checks of names, kinds and sizes.
func (b *Bundle) checkEntries() error {
	if n := len(b.zr.File); n > b.limits.MaxFiles {
		return fmt.Errorf("the archive has %d entries, over the limit of %d; refusing it", n, b.limits.MaxFiles)
	}
	seen := map[string]string{} // folded name -> name
	dirs := map[string]bool{}   // folded directories of the files
	var total uint64
	for _, zf := range b.zr.File {
		name := strings.TrimSuffix(zf.Name, "/")
		if err := checkName(name); err != nil {
			return fmt.Errorf("refusing the archive: entry %w", err)
		}
		if strings.ContainsRune(name, ':') {
			return fmt.Errorf("refusing the archive: entry %q has a colon, which Windows reads as a drive or a stream", zf.Name)
		}
		mode := zf.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return fmt.Errorf("refusing the archive: entry %q is a symbolic link; a bundle holds only files and directories", zf.Name)
		case !mode.IsRegular() && !mode.IsDir():
			return fmt.Errorf("refusing the archive: entry %q is a %v, not a file or a directory", zf.Name, mode.Type())
		case mode.IsDir() != strings.HasSuffix(zf.Name, "/"):
			return fmt.Errorf("refusing the archive: entry %q is a directory whose name does not end in /, or the other way round", zf.Name)
		}
		folded := strings.ToLower(name)
		if other, dup := seen[folded]; dup {
			return fmt.Errorf("refusing the archive: entries %q and %q are the same file on a case-insensitive file system", other, zf.Name)
		}
		seen[folded] = zf.Name
		for d := path.Dir(folded); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
		// Each size, then the sum, without overflow: an entry may declare
		// up to 2^64-1 bytes, which would wrap the total.
		if size, max := zf.UncompressedSize64, uint64(b.limits.MaxBytes); size > max-total {
			return fmt.Errorf("refusing the archive: its files unpack to more than the limit of %d bytes (at %q, which declares %d)", b.limits.MaxBytes, zf.Name, size)
		}
		total += zf.UncompressedSize64
	}
	for _, zf := range b.zr.File {
		if !zf.Mode().IsDir() && dirs[strings.ToLower(zf.Name)] {
			return fmt.Errorf("refusing the archive: %q is both a file and a directory", zf.Name)
		}
	}
	return nil
}

// readManifest reads and checks manifest.json.
func (b *Bundle) readManifest() (*Manifest, error) {
	i := slices.IndexFunc(b.zr.File, func(zf *zip.File) bool { return zf.Name == "manifest.json" })
	if i < 0 {
		return nil, errors.New("no manifest.json at the root of the archive; it is not an .mcpb bundle")
	}
	data, err := readEntry(b.zr.File[i], maxManifest)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(b.zr.File, func(zf *zip.File) bool { return zf.Name == m.Server.EntryPoint }) {
		return nil, fmt.Errorf("manifest.json: server.entry_point %q is not in the archive", m.Server.EntryPoint)
	}
	if cp := m.Compatibility; cp != nil && len(cp.Platforms) > 0 && !slices.Contains(cp.Platforms, Platform(runtime.GOOS)) {
		return nil, fmt.Errorf("the bundle runs on %s, not on this %s", strings.Join(cp.Platforms, ", "), Platform(runtime.GOOS))
	}
	return m, nil
}

// Platform returns the name the MCPB specification gives the operating
// system goos (a value of runtime.GOOS): "win32" for "windows"; the
// others as they are.
func Platform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// readEntry reads zf whole, refusing more than max bytes or more than
// the entry declares.
func readEntry(zf *zip.File, max int64) ([]byte, error) {
	if zf.UncompressedSize64 > uint64(max) {
		return nil, fmt.Errorf("%s is over %d bytes", zf.Name, max)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", zf.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, int64(zf.UncompressedSize64)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", zf.Name, err)
	}
	if uint64(len(data)) > zf.UncompressedSize64 {
		return nil, fmt.Errorf("%s unpacks to more than the %d bytes it declares; refusing the archive", zf.Name, zf.UncompressedSize64)
	}
	return data, nil
}

// Unpack writes the bundle's files into the directory dir, which must not
// exist, all or nothing: into a new directory beside dir first, through
// an [os.Root] so that no name can lead out of it, then renamed to dir.
// Files keep their executable bits (0o755) or are 0o644. A file that
// unpacks to more than its entry declares, or files that together write
// more than the limit of unpacked bytes, stop the unpacking.
func (b *Bundle) Unpack(dir string) (err error) {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%s already exists; unpack into a new directory", dir)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".unpack-"+filepath.Base(dir)+"-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer root.Close()
	left := b.limits.MaxBytes // what may still be written, counted as it is
	for _, zf := range b.zr.File {
		name := strings.TrimSuffix(zf.Name, "/")
		if zf.Mode().IsDir() {
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
			continue
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		n, err := unpackFile(root, zf, name, left)
		if err != nil {
			return fmt.Errorf("unpacking %s: %w", zf.Name, err)
		}
		left -= n
	}
	if err := root.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// unpackFile writes zf to name under root, writing no more than the
// entry declares nor than left bytes, and returns the bytes written.
func unpackFile(root *os.Root, zf *zip.File, name string, left int64) (int64, error) {
	perm := fs.FileMode(0o644)
	if zf.Mode().Perm()&0o111 != 0 {
		perm = 0o755
	}
	if zf.UncompressedSize64 > uint64(left) {
		return 0, fmt.Errorf("it declares %d bytes, more than the %d left under the limit for the files unpacked; refusing the archive", zf.UncompressedSize64, left)
	}
	rc, err := zf.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(rc, int64(zf.UncompressedSize64)+1))
	switch {
	case err == nil && uint64(n) > zf.UncompressedSize64, errors.Is(err, zip.ErrFormat):
		// archive/zip itself stops at the declared size with ErrFormat.
		err = fmt.Errorf("it unpacks to more than the %d bytes it declares, or is damaged; refusing the archive", zf.UncompressedSize64)
	case errors.Is(err, zip.ErrChecksum):
		err = errors.New("its data do not match its checksum; refusing the archive")
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// A Launch is how a host starts a bundle's server.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string // nil when mcp_config sets none
}

// Launch returns the command, arguments and environment that start the
// server of m unpacked in dir on platform (an entry of [Platforms]), as a
// host runs it: mcp_config with platform's override applied and its
// variables replaced.
//
// The variables are ${__dirname} (dir), ${HOME}, ${DESKTOP},
// ${DOCUMENTS}, ${DOWNLOADS} (the user's folders), ${pathSeparator} and
// ${/}, and ${user_config.KEY}: values[KEY] (a string, float64, bool or
// []string), else the setting's default (whose own variables are
// replaced, but not ${user_config.KEY} again). An argument that is exactly ${user_config.KEY} of a list
// becomes one argument per item; elsewhere a list is joined with commas.
// As in the official implementation (getMcpConfigForManifest in
// github.com/modelcontextprotocol/mcpb), an optional setting without a
// value and an unknown variable are left as written. A required setting
// without a value is a [*MissingError].
//
// A binary server's relative command, and an argument that names a file
// of the bundle, are made absolute under dir, since an assistant does not
// start servers in their own directory. A binary server's command must be
// a file under dir.
func (m *Manifest) Launch(dir, platform string, values map[string]any) (*Launch, error) {
	mc := m.Server.MCPConfig
	if mc == nil {
		return nil, fmt.Errorf("the bundle's server (type %s) has no mcp_config, so it cannot be started as a command", m.Server.Type)
	}
	l := &Launch{Command: mc.Command, Args: mc.Args, Env: mc.Env}
	if o, ok := mc.PlatformOverrides[platform]; ok {
		if o.Command != "" {
			l.Command = o.Command
		}
		if o.Args != nil {
			l.Args = o.Args
		}
		if o.Env != nil {
			l.Env = o.Env
		}
	}
	x := newExpander(m, dir, values)
	l.Args = x.args(l.Args, dir)
	l.Command = x.expand(l.Command, true)
	if m.Server.Type == "binary" {
		command, err := binaryCommand(l.Command, dir)
		if err != nil {
			return nil, err
		}
		l.Command = command
	}
	if l.Env != nil {
		expanded := make(map[string]string, len(l.Env))
		for k, v := range l.Env {
			expanded[k] = x.expand(v, true)
		}
		l.Env = expanded
	}
	if len(x.missing) > 0 {
		slices.Sort(x.missing)
		return nil, &MissingError{Keys: slices.Compact(x.missing)}
	}
	return l, nil
}

// An expander replaces the variables of mcp_config, as Launch says.
type expander struct {
	m       *Manifest
	values  map[string]any
	vars    map[string]string
	missing []string // required settings without a value, as met
}

func newExpander(m *Manifest, dir string, values map[string]any) *expander {
	home, _ := os.UserHomeDir()
	sep := string(filepath.Separator)
	return &expander{m: m, values: values, vars: map[string]string{
		"__dirname": dir, "HOME": home, "DESKTOP": filepath.Join(home, "Desktop"),
		"DOCUMENTS": filepath.Join(home, "Documents"), "DOWNLOADS": filepath.Join(home, "Downloads"),
		"pathSeparator": sep, "/": sep,
	}}
}

// setting returns the value of the user_config setting key: the user's,
// else its default. A required one with neither is noted as missing.
func (x *expander) setting(key string) (any, bool) {
	if v, ok := x.values[key]; ok {
		return v, true
	}
	u := x.m.UserConfig[key]
	if u.Default == nil {
		if u.Required {
			x.missing = append(x.missing, key)
		}
		return nil, false
	}
	return u.Default, true
}

// expand replaces the variables in s. In a setting's value (settings
// false), a ${user_config.KEY} stays as written: a setting that named
// itself would never end.
func (x *expander) expand(s string, settings bool) string {
	return varRE().ReplaceAllStringFunc(s, func(v string) string {
		name := v[2 : len(v)-1]
		if key, ok := strings.CutPrefix(name, "user_config."); ok {
			if !settings {
				return v
			}
			val, ok := x.setting(key)
			if !ok {
				return v
			}
			items := list(val)
			for i := range items {
				items[i] = x.expand(items[i], false)
			}
			return strings.Join(items, ",")
		}
		if val, ok := x.vars[name]; ok {
			return val
		}
		return v
	})
}

// args expands the arguments: one that is exactly ${user_config.KEY}
// becomes one per item of the setting, and one that names a file of the
// bundle in dir becomes its absolute path.
func (x *expander) args(args []string, dir string) []string {
	var out []string
	for _, a := range args {
		if key, ok := strings.CutPrefix(a, "${user_config."); ok && strings.HasSuffix(key, "}") && !strings.Contains(key, "${") {
			if val, ok := x.setting(strings.TrimSuffix(key, "}")); ok {
				for _, item := range list(val) {
					out = append(out, x.expand(item, false))
				}
				continue
			}
		}
		a = x.expand(a, true)
		if name := filepath.FromSlash(a); !filepath.IsAbs(name) && checkName(a) == nil {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				a = filepath.Join(dir, name)
			}
		}
		out = append(out, a)
	}
	return out
}

// binaryCommand makes a binary server's command absolute under dir (with
// .exe on Windows when it has no extension), and refuses one outside dir.
func binaryCommand(command, dir string) (string, error) {
	if !filepath.IsAbs(filepath.FromSlash(command)) {
		command = filepath.Join(dir, filepath.FromSlash(command))
		if runtime.GOOS == "windows" && filepath.Ext(command) == "" {
			command += ".exe"
		}
	}
	if rel, err := filepath.Rel(dir, filepath.FromSlash(command)); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("the bundle's binary server would run %s, which is outside the bundle's folder %s; a binary server runs a file of its bundle", command, dir)
	}
	return command, nil
}

// A MissingError names required user_config settings without a value.
type MissingError struct{ Keys []string }

func (e *MissingError) Error() string {
	return "no value for the required setting " + strings.Join(e.Keys, ", ")
}

// list returns a setting's value as strings: none for nil, each item of
// a list, else the one value as JSON writes it.
func list(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return []string{v}
	case []string:
		return slices.Clone(v)
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, list(x)...)
		}
		return out
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	case bool:
		return []string{strconv.FormatBool(v)}
	}
	return []string{fmt.Sprint(v)}
}
