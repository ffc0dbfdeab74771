package manifest

import "os"

// Warnings reports what would make calls fail although the manifest is
// valid: programs not found and working directories missing on this
// machine, and numbers in positional slots, where a negative value cannot
// be passed.
// It returns nil when there is nothing to report.
func (m *Manifest) Warnings() *Problems {
	l := newProblemList(m.probs.data, m.probs.root)
	seen := map[string]bool{}
	for _, t := range m.tools {
		if prog := t.spec.Command[0]; !seen[prog] { // once per program
			if _, err := t.lookPath(prog); err != nil {
				l.add(t.path+".command[0]", "warning: %v", err)
			}
			seen[prog] = true
		}
		if t.dir != "" {
			if fi, err := os.Stat(t.dir); err != nil || !fi.IsDir() {
				l.add(t.path, "warning: working directory %s does not exist here", t.dir)
			}
		}
		for _, s := range t.negative {
			l.add(s.path, "warning: {%s} is a number in a positional slot, where a negative value would be read as an option, so calls with one are refused; "+
				"give the input a \"flag\", put \"--\" before it in \"command\", or declare \"minimum\": 0", s.input)
		}
	}
	if len(l.list) == 0 {
		return nil
	}
	return &Problems{File: m.file, List: l.list}
}
