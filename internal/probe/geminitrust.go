package probe

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tailscale/hujson"
)

// Gemini CLI (0.61) starts no MCP server, not even a user-scope one, in a
// folder it does not trust: it shows them disabled. Folder trust is on
// unless security.folderTrust.enabled is false in the user's or the
// system's settings.json; GEMINI_CLI_TRUST_WORKSPACE=true trusts every
// folder, =false (or GEMINI_RESTRICTED_MODE=true) none; otherwise the
// rule of ~/.gemini/trustedFolders.json (GEMINI_CLI_TRUSTED_FOLDERS_PATH)
// with the longest path that covers the folder decides: TRUST_FOLDER (that
// folder and those under it), TRUST_PARENT (the folder's parent and all
// under it), DO_NOT_TRUST. Without a rule the folder is not trusted, and
// Gemini CLI asks when it starts there. (An IDE's workspace trust, which
// Gemini CLI also takes, is not known here.)

// geminiUntrusted returns what Gemini CLI does instead of starting its
// MCP servers in dir, and why, or "" when it starts them.
func geminiUntrusted(dir string) string {
	off := "Gemini CLI shows it disabled in " + dir + " and does not start it: "
	switch {
	case os.Getenv("GEMINI_RESTRICTED_MODE") == "true":
		return off + "GEMINI_RESTRICTED_MODE=true makes every folder untrusted"
	case os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return off + "GEMINI_CLI_TRUST_WORKSPACE=false makes every folder untrusted"
	case os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return ""
	}
	home := os.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if !geminiFolderTrust(filepath.Join(home, ".gemini", "settings.json"), geminiSystemSettings()) {
		return ""
	}
	file := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if file == "" {
		file = filepath.Join(home, ".gemini", "trustedFolders.json")
	}
	rules, err := geminiTrustRules(file)
	if err != nil {
		return fmt.Sprintf("Gemini CLI refuses to start: %s: %v; fix the file", file, err)
	}
	level, rule := "", ""
	for path, l := range rules {
		eff := path
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(path)
		}
		if within(realPath(eff), realPath(dir)) && len(path) > len(rule) {
			level, rule = l, path
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return ""
	case "DO_NOT_TRUST":
		return off + fmt.Sprintf("the folder is untrusted (%q: \"DO_NOT_TRUST\" in %s)", rule, file)
	}
	return off + fmt.Sprintf("the folder is not trusted yet (no rule in %s); trust it when Gemini CLI asks, or add %q: \"TRUST_FOLDER\" there", file, dir)
}

// geminiSystemSettings returns Gemini CLI's system settings file.
func geminiSystemSettings() string {
	if f := os.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); f != "" {
		return f
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}

// geminiFolderTrust reports whether folder trust is on: the system's
// settings file, then the user's, may turn it off; it is on by default.
func geminiFolderTrust(user, system string) bool {
	on := true
	for _, f := range []string{user, system} { // the later wins
		var s struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if readJSONC(f, &s) == nil && s.Security.FolderTrust.Enabled != nil {
			on = *s.Security.FolderTrust.Enabled
		}
	}
	return on
}

// geminiTrustRules reads trustedFolders.json: absolute paths and their
// trust levels. A missing file has none.
func geminiTrustRules(file string) (map[string]string, error) {
	var raw map[string]any
	if err := readJSONC(file, &raw); os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	rules := map[string]string{}
	for path, v := range raw {
		l, _ := v.(string)
		if l != "TRUST_FOLDER" && l != "TRUST_PARENT" && l != "DO_NOT_TRUST" {
			return nil, fmt.Errorf("the trust level of %q is %v, not TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST", path, v)
		}
		if abs, err := filepath.Abs(path); err == nil {
			rules[abs] = l
		}
	}
	return rules, nil
}

// readJSONC decodes the JSON-with-comments file into v.
func readJSONC(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if data, err = hujson.Standardize(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// realPath returns path with its symbolic links resolved, if it exists.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}

// within reports whether path is dir or under it, with case folded where
// the file system folds it (macOS, Windows), as Gemini CLI compares them.
func within(dir, path string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		dir, path = strings.ToLower(dir), strings.ToLower(path)
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}
