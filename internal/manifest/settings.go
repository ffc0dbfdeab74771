package manifest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/toolresult"
)

func checkSettings(probs *problemList, path string, s *Settings) {
	if s.Output != "" && s.Output != "text" && s.Output != "json" {
		probs.add(path+".output", "%q is not an output mode; use \"text\" or \"json\"", s.Output)
	}
	checkMode(probs, path+".stderr", s.Stderr, "stderr mode", "errors", "always")
	if s.OKExitCodes != nil && len(s.OKExitCodes) == 0 {
		probs.add(path+".okExitCodes", "empty: no exit code would be a normal result; list at least one, such as [0]")
	}
	for i, c := range s.OKExitCodes {
		if c < 0 || c > 255 {
			probs.add(fmt.Sprintf("%s.okExitCodes[%d]", path, i), "%d is not an exit code; use 0 to 255", c)
		}
	}
	if s.Dir == "" && probs.hasKey(path+".dir") {
		probs.add(path+".dir", "empty working directory; leave \"dir\" out to use mcpship's own")
	}
	for name := range s.Env {
		if !validEnvName(name) {
			probs.add(join(path+".env", name), "%q is not a variable name; use letters, digits and '_'", name)
		}
	}
	for i, name := range s.PassEnv {
		if !validEnvName(name) {
			probs.add(fmt.Sprintf("%s.passEnv[%d]", path, i), "%q is not a variable name; use letters, digits and '_'", name)
		}
	}
	if s.Timeout > 24*time.Hour {
		probs.add(path+".timeout", "%v is longer than the limit of 24h", s.Timeout)
	}
	if probs.hasKey(path+".maxOutputBytes") && (s.MaxOutputBytes < 1024 || s.MaxOutputBytes > 64<<20) {
		probs.add(path+".maxOutputBytes", "%d is out of range; use 1024 to 67108864 (64 MiB)", s.MaxOutputBytes)
	}
	switch b := s.OutputBudget; {
	case !probs.hasKey(path + ".outputBudget"):
	case b <= 0:
		probs.add(path+".outputBudget", "%d characters would leave no room for any output; use at least %d, or leave it out for the default of %d", b, minBudget, DefaultOutputBudget)
	case b < minBudget || b > maxBudget:
		probs.add(path+".outputBudget", "%d is out of range; use %d to %d characters", b, minBudget, maxBudget)
	}
}

// checkMode checks the value of a field that takes one of modes, "" for
// the default.
func checkMode(probs *problemList, path, value, what string, modes ...string) {
	if value == "" || slices.Contains(modes, value) {
		return
	}
	hint := ""
	for _, m := range modes {
		if strings.EqualFold(m, value) || distance(m, strings.ToLower(value)) <= 2 {
			hint = fmt.Sprintf(" (did you mean %q?)", m)
			break
		}
	}
	probs.add(path, "%q is not a %s%s; use %s", value, what, hint, quoteOr(modes))
}

// quoteOr is "a" or "b", or "a", "b" or "c".
func quoteOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// The range of outputBudget: room for a head, a tail and the note between
// them; at most what maxOutputBytes can keep.
const (
	minBudget = toolresult.MinChars
	maxBudget = toolresult.MaxChars
)

// settle resolves a tool's settings from its own and the defaults.
func (t *tool) settle(d, s *Settings) {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	t.output = pick(pick(s.Output, d.Output), "text")
	t.stderr = pick(s.Stderr, d.Stderr) == "always"
	t.okCodes = s.OKExitCodes
	if t.okCodes == nil {
		t.okCodes = d.OKExitCodes
	}
	if t.okCodes == nil {
		t.okCodes = []int{0}
	}
	t.dir = pick(s.Dir, d.Dir)
	if t.dir != "" && !filepath.IsAbs(t.dir) {
		t.dir = filepath.Join(t.m.dir, t.dir)
	}
	t.env = map[string]string{}
	for k, v := range d.Env {
		t.env[k] = v
	}
	for k, v := range s.Env {
		t.env[k] = v
	}
	t.passEnv = slices.Concat(DefaultPassEnv, d.PassEnv, s.PassEnv)
	t.timeout = s.Timeout
	if t.timeout == 0 {
		t.timeout = d.Timeout
	}
	if t.timeout == 0 {
		t.timeout = DefaultTimeout
	}
	t.maxOut = s.MaxOutputBytes
	if t.maxOut == 0 {
		t.maxOut = d.MaxOutputBytes
	}
	if t.maxOut == 0 {
		t.maxOut = DefaultMaxOutputBytes
	}
	t.budget, t.errorBudget = s.OutputBudget, s.OutputBudget
	if t.budget == 0 {
		t.budget, t.errorBudget = d.OutputBudget, d.OutputBudget
	}
	if t.budget == 0 {
		t.budget, t.errorBudget = DefaultOutputBudget, DefaultErrorBudget
	}
}
