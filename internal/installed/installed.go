// Package installed keeps the servers that "mcpship add" installed: each
// unpacked bundle in a folder of its own per server and version under a
// per-user directory ([Root]), and beside it a record of where the server
// came from, which list and remove read.
//
//	ROOT/NAME/installed.json   the Record
//	ROOT/NAME/VERSION/         the unpacked bundle
package installed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/atomicfile"
)

// A Record says what add installed under one server name.
type Record struct {
	Name    string `json:"name"`    // the server's name in the assistants' configs
	Server  string `json:"server"`  // its name in the registry, or the bundle's name
	Version string `json:"version"` // its version
	// Source is what add was given: a file, a URL, or NAME@VERSION in
	// Registry.
	Source   string `json:"source"`
	Registry string `json:"registry,omitempty"`
	// Kind is "mcpb" for a bundle, or the registry type of a package its
	// launcher fetches: "npm", "pypi", "oci".
	Kind string `json:"kind"`
	// Scope is the scope of the entries add wrote, the default of remove.
	Scope  string `json:"scope,omitempty"`
	URL    string `json:"url,omitempty"`    // where the bundle was downloaded from
	SHA256 string `json:"sha256,omitempty"` // of the bundle
	Dir    string `json:"dir,omitempty"`    // the unpacked bundle; "" for a package
	// Command is the command registered, which tells the entries of this
	// install from others of the same name.
	Command string    `json:"command"`
	Time    time.Time `json:"time"`
}

// From describes where the server came from, for people, with the
// password of any URL hidden ([Redact]).
func (r *Record) From() string {
	switch {
	case r.Registry != "":
		return fmt.Sprintf("%s %s from the registry %s (%s)", r.Server, r.Version, Redact(r.Registry), r.Kind)
	case r.URL != "":
		return fmt.Sprintf("%s %s from %s", r.Server, r.Version, Redact(r.URL))
	}
	return fmt.Sprintf("%s %s from %s", r.Server, r.Version, Redact(r.Source))
}

// Redact returns the URL u with the password of its user information
// replaced, as [url.URL.Redacted] does; anything else as it is.
func Redact(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.User != nil && pu.Host != "" {
		if _, ok := pu.User.Password(); ok {
			return pu.Redacted()
		}
	}
	return u
}

// Root returns the directory of installed servers: $MCPSHIP_SERVERS_DIR
// if set, else $XDG_DATA_HOME/mcpship/servers or
// ~/.local/share/mcpship/servers on Linux and other Unix systems,
// ~/Library/Application Support/mcpship/servers on macOS, and
// %LOCALAPPDATA%\mcpship\servers on Windows.
func Root() (string, error) {
	if d := os.Getenv("MCPSHIP_SERVERS_DIR"); d != "" {
		return filepath.Abs(d)
	}
	var base string
	switch runtime.GOOS {
	case "windows":
		base = os.Getenv("LOCALAPPDATA")
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, "Library", "Application Support")
	default:
		base = os.Getenv("XDG_DATA_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".local", "share")
		}
	}
	if base == "" {
		return "", errors.New("cannot find the directory for installed servers; set MCPSHIP_SERVERS_DIR")
	}
	return filepath.Join(base, "mcpship", "servers"), nil
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// CheckName refuses a server or version name that cannot be a folder
// name on every system.
func CheckName(what, name string) error {
	if !nameRE().MatchString(name) || len(name) > 100 || strings.Contains(name, "..") {
		return fmt.Errorf("%s %q cannot name a folder: use letters, digits, '.', '_' and '-' (up to 100)", what, name)
	}
	return nil
}

// Dir returns the folder of version of the server name under root.
func Dir(root, name, version string) string {
	return filepath.Join(root, name, version)
}

const recordName = "installed.json"

// Load returns the record of the server name, or nil if there is none.
func Load(root, name string) (*Record, error) {
	if CheckName("server name", name) != nil {
		return nil, nil // add never installs such a name
	}
	data, err := os.ReadFile(filepath.Join(root, name, recordName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(root, name, recordName), err)
	}
	return &r, nil
}

// All returns every record under root, by name.
func All(root string) ([]*Record, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rs []*Record
	for _, e := range entries {
		if r, err := Load(root, e.Name()); err != nil {
			return rs, err
		} else if r != nil {
			rs = append(rs, r)
		}
	}
	return rs, nil
}

// Save writes r as the record of its name, replacing any other at once
// (a new file renamed over the old one).
func Save(root string, r *Record) error {
	dir := filepath.Join(root, r.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, recordName), append(data, '\n'), 0o600)
}

// Delete removes the server name: its record and every version unpacked.
func Delete(root, name string) error {
	if err := CheckName("server name", name); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(root, name))
}

// Tidy removes the folder of the server name if nothing is left in it.
func Tidy(root, name string) {
	os.Remove(filepath.Join(root, name)) // fails, as it should, unless empty
}

// Uses reports whether a command and its arguments refer to dir or a
// file in it.
func Uses(dir, command string, args []string) bool {
	if dir == "" {
		return false
	}
	return slices.ContainsFunc(append([]string{command}, args...), func(s string) bool {
		return s == dir || strings.HasPrefix(s, dir+string(filepath.Separator)) || strings.HasPrefix(s, dir+"/")
	})
}
