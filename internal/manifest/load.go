package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
)

// Load reads and checks the manifest in file. An invalid manifest gives
// a *Problems error listing every problem found.
func Load(file string) (*Manifest, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	return Parse(file, data)
}

// Parse checks the manifest in data; file names it in messages, and its
// directory is where relative dirs and programs are resolved.
func Parse(file string, data []byte) (*Manifest, error) {
	root, err := parseTree(data)
	probs := newProblemList(data, root)
	if err != nil {
		se := err.(*syntaxError)
		probs.addAt(se.off, "", "%s", se.msg)
		return nil, probs.err(file)
	}
	sum := sha256.Sum256(data)
	m := &Manifest{file: file, digest: hex.EncodeToString(sum[:])}
	if abs, err := filepath.Abs(file); err == nil {
		m.dir = filepath.Dir(abs)
	}
	(&decoder{probs: probs}).decode(root, reflect.ValueOf(m).Elem(), "")
	decoded := len(probs.list)
	m.check(probs)
	if len(probs.list) == 0 {
		m.probs = probs
		return m, nil
	}
	probs.dropFollowOn(decoded)
	return nil, probs.err(file)
}

func (m *Manifest) check(probs *problemList) {
	checkSettings(probs, "defaults", &m.Defaults)
	if len(m.Tools) == 0 {
		probs.add("tools", "no tools: add at least one, such as {\"name\": \"x\", \"description\": \"…\", \"command\": [\"prog\"]}")
	}
	seen := map[string]int{}
	for i := range m.Tools {
		path := fmt.Sprintf("tools[%d]", i)
		t := &m.Tools[i]
		if j, dup := seen[t.Name]; dup && t.Name != "" {
			probs.add(path+".name", "tool %q is already declared by tools[%d]; tool names must be unique", t.Name, j)
		}
		seen[t.Name] = i
		m.tools = append(m.tools, m.compile(probs, path, t))
	}
}
