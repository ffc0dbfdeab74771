package installer

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is everything path resolution reads from the machine: the OS, the
// environment variables and which files exist. Tests fill it in to resolve
// paths for any OS.
type Env struct {
	GOOS       string              // as runtime.GOOS: "linux", "darwin", "windows"
	Getenv     func(string) string // reads an environment variable
	Exists     func(string) bool   // reports whether a file or directory exists
	ProjectDir string              // absolute directory of the project scope
}

// OSEnv returns the Env of the running process with the project scope in
// dir (the current directory if dir is empty).
func OSEnv(dir string) (Env, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Env{}, err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Env{}, err
	}
	return Env{
		GOOS:   runtime.GOOS,
		Getenv: os.Getenv,
		Exists: func(p string) bool {
			_, err := os.Stat(p)
			return err == nil
		},
		ProjectDir: abs,
	}, nil
}

// join joins path elements with the separator of e.GOOS.
func (e Env) join(elem ...string) string {
	if e.GOOS != "windows" {
		return path.Join(elem...)
	}
	for i := range elem {
		elem[i] = strings.ReplaceAll(elem[i], `\`, "/")
	}
	return strings.ReplaceAll(path.Join(elem...), "/", `\`)
}

// home is the user's home directory, as os.UserHomeDir finds it.
func (e Env) home() (string, error) {
	v := "HOME"
	if e.GOOS == "windows" {
		v = "USERPROFILE"
	}
	if h := e.Getenv(v); h != "" {
		return h, nil
	}
	return "", errors.New("$" + v + " is not set, so the user's config files cannot be found")
}

// envOr returns $name, or the home directory joined with elem.
func (e Env) envOr(name string, elem ...string) (string, error) {
	if v := e.Getenv(name); v != "" {
		return v, nil
	}
	h, err := e.home()
	if err != nil {
		return "", err
	}
	return e.join(append([]string{h}, elem...)...), nil
}

// xdgConfig is $XDG_CONFIG_HOME or ~/.config.
func (e Env) xdgConfig() (string, error) { return e.envOr("XDG_CONFIG_HOME", ".config") }

// appData is %APPDATA% (Windows).
func (e Env) appData() (string, error) { return e.envOr("APPDATA", "AppData", "Roaming") }

// localAppData is %LOCALAPPDATA% (Windows).
func (e Env) localAppData() (string, error) { return e.envOr("LOCALAPPDATA", "AppData", "Local") }

// underHome returns ~/elem...
func (e Env) underHome(elem ...string) (string, error) {
	h, err := e.home()
	if err != nil {
		return "", err
	}
	return e.join(append([]string{h}, elem...)...), nil
}

// vscodeUser is VS Code's user data directory, where its user mcp.json
// and the extensions' global storage live.
func (e Env) vscodeUser() (string, error) {
	var base string
	var err error
	switch e.GOOS {
	case "darwin":
		base, err = e.underHome("Library", "Application Support")
	case "windows":
		base, err = e.appData()
	default:
		base, err = e.xdgConfig()
	}
	if err != nil {
		return "", err
	}
	return e.join(base, "Code", "User"), nil
}

// StateDir returns the directory mcpship keeps backups, locks and its
// record of registrations in: $MCPSHIP_STATE_DIR if set, else
// $XDG_STATE_HOME/mcpship or ~/.local/state/mcpship on Linux and other
// Unix systems, ~/Library/Application Support/mcpship on macOS, and
// %LOCALAPPDATA%\mcpship on Windows.
func (e Env) StateDir() (string, error) {
	if d := e.Getenv("MCPSHIP_STATE_DIR"); d != "" {
		return d, nil
	}
	var base string
	var err error
	switch e.GOOS {
	case "darwin":
		base, err = e.underHome("Library", "Application Support")
	case "windows":
		base, err = e.localAppData()
	default:
		base, err = e.envOr("XDG_STATE_HOME", ".local", "state")
	}
	if err != nil {
		return "", err
	}
	return e.join(base, "mcpship"), nil
}
