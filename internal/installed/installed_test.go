package installed

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRecords(t *testing.T) {
	root := t.TempDir()
	if r, err := Load(root, "rigor"); r != nil || err != nil {
		t.Fatalf("Load of nothing: %v, %v", r, err)
	}
	r := &Record{Name: "rigor", Server: "io.github.o/rigor", Version: "1.0.0", Registry: "https://r.example", Kind: "mcpb",
		Dir: Dir(root, "rigor", "1.0.0"), Command: filepath.Join(root, "rigor", "1.0.0", "server", "mcpship")}
	if err := Save(root, r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(root, "rigor")
	if err != nil || got.From() != "io.github.o/rigor 1.0.0 from the registry https://r.example (mcpb)" {
		t.Fatalf("Load: %+v, %v", got, err)
	}
	all, err := All(root)
	if err != nil || len(all) != 1 {
		t.Errorf("All: %v, %v", all, err)
	}
	if !Uses(r.Dir, r.Command, nil) || !Uses(r.Dir, "node", []string{r.Dir + "/index.js"}) || Uses(r.Dir, r.Dir+"0/x", nil) || Uses("", "x", nil) {
		t.Error("Uses")
	}
	if err := Delete(root, "rigor"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "rigor")); !os.IsNotExist(err) {
		t.Errorf("Delete left %v", err)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"rigor": true, "1.0.0-rc.1": true, "a_b": true,
		"": false, "..": false, "a..b": false, "../x": false, "a/b": false, ".hidden": false, `a\b`: false, "a:b": false} {
		if err := CheckName("name", name); (err == nil) != ok {
			t.Errorf("CheckName(%q): %v", name, err)
		}
	}
}
