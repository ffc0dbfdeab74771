package manifest

import "testing"

// TestBudgetSettles: a tool's outputBudget wins over the defaults', which
// win over DefaultOutputBudget; setting one sets the error budget too; a
// budget over Claude Code's 50,000 characters is declared to it in _meta.
func TestBudgetSettles(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"defaults": {"outputBudget": 60000}, "tools": [
		{"name": "a", "description": "d", "command": ["x"]},
		{"name": "b", "description": "d", "command": ["x"], "outputBudget": 5000},
		{"name": "c", "description": "d", "command": ["x"], "outputBudget": 900000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		budget, errBudget int
		meta              any
	}{{60000, 60000, 60000}, {5000, 5000, nil}, {900000, 900000, 500000}} {
		tl := m.tools[i]
		if tl.budget != want.budget || tl.errorBudget != want.errBudget {
			t.Errorf("tool %d: budget %d, error budget %d; want %d, %d", i, tl.budget, tl.errorBudget, want.budget, want.errBudget)
		}
		if got := tl.mcpTool().Meta["anthropic/maxResultSizeChars"]; got != want.meta {
			t.Errorf("tool %d: maxResultSizeChars %v, want %v", i, got, want.meta)
		}
	}
	m, err = Parse("m.json", []byte(`{"tools": [{"name": "a", "description": "d", "command": ["x"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if tl := m.tools[0]; tl.budget != DefaultOutputBudget || tl.errorBudget != DefaultErrorBudget || tl.mcpTool().Meta["anthropic/maxResultSizeChars"] != nil {
		t.Errorf("defaults: %d, %d, %v", tl.budget, tl.errorBudget, tl.mcpTool().Meta)
	}
}
