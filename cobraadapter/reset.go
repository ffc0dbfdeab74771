package cobraadapter

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// resetFlags sets every flag of the tree under root to its default and
// marks it unchanged, so that a call sees only the flags it gives, even
// in a tree that served calls before and whose flags are bound to
// package-level variables (as cobra-cli lays an app out). A list flag
// takes its default back whole, and the first value a call gives it then
// replaces that default rather than adding to it (pflag's lists add to
// what they hold once they were set).
func resetFlags(root *cobra.Command) {
	seen := map[*pflag.Flag]bool{}
	reset := func(f *pflag.Flag) {
		if seen[f] {
			return
		}
		seen[f] = true
		f.Changed = false
		if fresh, ok := f.Value.(*freshList); ok {
			f.Value = fresh.Value
		}
		if list, ok := f.Value.(pflag.SliceValue); ok {
			_ = list.Replace(listDefault(f.DefValue))
			f.Value = &freshList{Value: f.Value, list: list}
			return
		}
		_ = f.Value.Set(f.DefValue) // a Value that cannot read its default back keeps its value
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.PersistentFlags().VisitAll(reset)
		c.Flags().VisitAll(reset)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// listDefault reads the default of a pflag list back from its text, as
// pflag prints it: "[a,b]", with each item quoted as CSV when it must be.
func listDefault(def string) []string {
	def = strings.TrimSuffix(strings.TrimPrefix(def, "["), "]")
	if def == "" {
		return []string{}
	}
	items, err := csv.NewReader(strings.NewReader(def)).Read()
	if err != nil {
		return []string{}
	}
	return items
}

// freshList is a list flag's Value for one call: the first value the call
// gives replaces the list, and later ones add to it.
type freshList struct {
	pflag.Value
	list  pflag.SliceValue
	given bool
}

func (l *freshList) Set(s string) error {
	if !l.given {
		l.given = true
		if err := l.list.Replace([]string{}); err != nil {
			return err
		}
	}
	return l.Value.Set(s)
}

func (l *freshList) Append(s string) error    { return l.list.Append(s) }
func (l *freshList) Replace(s []string) error { return l.list.Replace(s) }
func (l *freshList) GetSlice() []string       { return l.list.GetSlice() }
