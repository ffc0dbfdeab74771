package installed

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	t.Setenv("MCPSHIP_SERVERS_DIR", "rel/servers")
	wd, _ := os.Getwd()
	if got, err := Root(); err != nil || got != filepath.Join(wd, "rel", "servers") {
		t.Errorf("Root with a relative MCPSHIP_SERVERS_DIR: %q, %v", got, err)
	}
	t.Setenv("MCPSHIP_SERVERS_DIR", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
	want := map[string]string{
		"windows": filepath.Join(home, "AppData", "Local", "mcpship", "servers"),
		"darwin":  filepath.Join(home, "Library", "Application Support", "mcpship", "servers"),
	}[runtime.GOOS]
	if want == "" {
		want = filepath.Join(home, "data", "mcpship", "servers")
	}
	if got, err := Root(); err != nil || got != want {
		t.Errorf("Root: %q, %v; want %q", got, err, want)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("LOCALAPPDATA", "")
	got, err := Root()
	switch runtime.GOOS {
	case "windows":
		if err == nil || !strings.Contains(err.Error(), "set MCPSHIP_SERVERS_DIR") {
			t.Errorf("Root without LOCALAPPDATA: %q, %v", got, err)
		}
	case "darwin":
	default:
		if want := filepath.Join(home, ".local", "share", "mcpship", "servers"); err != nil || got != want {
			t.Errorf("Root without XDG_DATA_HOME: %q, %v; want %q", got, err, want)
		}
	}
}

func TestFrom(t *testing.T) {
	for r, want := range map[*Record]string{
		{Server: "rigor", Version: "1.0.0", URL: "https://example.com/rigor.mcpb", Source: "https://example.com/rigor.mcpb"}: "rigor 1.0.0 from https://example.com/rigor.mcpb",
		{Server: "rigor", Version: "1.0.0", Source: "/home/me/rigor.mcpb"}:                                                   "rigor 1.0.0 from /home/me/rigor.mcpb",
	} {
		if got := r.From(); got != want {
			t.Errorf("From: %q, want %q", got, want)
		}
	}
}

// A damaged record is an error that names its file; so is one that
// cannot be read. All stops at it.
func TestLoadDamaged(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "rigor", recordName)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("{not json"), 0o644)
	if r, err := Load(root, "rigor"); r != nil || err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("Load of a damaged record: %v, %v", r, err)
	}
	if rs, err := All(root); len(rs) != 0 || err == nil {
		t.Errorf("All with a damaged record: %v, %v", rs, err)
	}
	os.Remove(file)
	os.Mkdir(file, 0o755) // a folder where the record should be
	if r, err := Load(root, "rigor"); r != nil || err == nil {
		t.Errorf("Load of a folder: %v, %v", r, err)
	}
	// A name add never installs has no record; neither has a root that
	// does not exist.
	if r, err := Load(root, "../rigor"); r != nil || err != nil {
		t.Errorf("Load of a bad name: %v, %v", r, err)
	}
	if rs, err := All(filepath.Join(root, "none")); rs != nil || err != nil {
		t.Errorf("All of no root: %v, %v", rs, err)
	}
	notDir := filepath.Join(root, "file")
	os.WriteFile(notDir, nil, 0o644)
	if _, err := All(notDir); err == nil {
		t.Error("All of a file: no error")
	}
}

// Save that cannot write leaves no temporary file behind; Delete refuses
// a name that could lead out of the root.
func TestSaveAndDeleteFail(t *testing.T) {
	root := t.TempDir()
	notDir := filepath.Join(root, "file")
	os.WriteFile(notDir, nil, 0o644)
	if err := Save(notDir, &Record{Name: "rigor"}); err == nil {
		t.Error("Save under a file: no error")
	}
	os.MkdirAll(filepath.Join(root, "rigor", recordName, "x"), 0o755) // the record's name is taken by a folder
	if err := Save(root, &Record{Name: "rigor"}); err == nil {
		t.Error("Save over a folder: no error")
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "rigor")); len(entries) != 1 {
		t.Errorf("Save left %v", entries)
	}
	if err := Delete(root, ".."); err == nil {
		t.Error("Delete(..): no error")
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("Delete(..) removed the root: %v", err)
	}
}
