package cobraadapter

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// AddTools registers the commands opts chooses as tools of srv. newRoot
// is called once here to read the commands and flags, then once per call.
// Before each call every flag of the tree is set to its default and marked
// unchanged. A newRoot that returns the same tree every time (as an app
// laid out by cobra-cli does) has its calls run one at a time.
func AddTools(srv *mcp.Server, newRoot func() *cobra.Command, opts Options) error {
	o, tools := opts.shared()
	return clitool.AddTools(srv, sharedApp(newRoot), tools, o)
}

// sharedApp describes an app to package clitool.
func sharedApp(newRoot func() *cobra.Command) clitool.App {
	setup := newRoot()
	root := setup
	a := clitool.App{Pkg: "cobraadapter", Name: root.Name()}
	a.Find = func(path []string) (*clitool.Command, error) {
		cmd := root
		for _, name := range path {
			var next *cobra.Command // the first of that name, as Cobra runs
			for _, c := range cmd.Commands() {
				if next == nil && (c.Name() == name || c.HasAlias(name)) {
					next = c
				}
			}
			if next == nil {
				var have []string
				for _, c := range cmd.Commands() {
					have = append(have, c.Name())
				}
				return nil, clitool.NoCommand(a, strings.Join(path, " "), name, have)
			}
			cmd = next
		}
		out := &clitool.Command{Usage: cmd.Short, Description: cmd.Long, RawArgs: cmd.DisableFlagParsing}
		for c := cmd; c != root; c = c.Parent() {
			out.Path = append([]string{c.Name()}, out.Path...)
		}
		if _, args, ok := strings.Cut(cmd.Use, " "); ok {
			out.ArgsUsage = args
		}
		out.Flags = append(flags(cmd.LocalFlags()), flags(cmd.InheritedFlags())...)
		return out, nil
	}
	// A tree that newRoot gives again serves one call at a time.
	var shared sync.Mutex
	// Cobra reads no subcommand after "--", so path needs no care.
	a.Run = func(ctx context.Context, _, argv []string, stdout, stderr io.Writer) error {
		root := newRoot()
		if root == setup {
			shared.Lock()
			defer shared.Unlock()
		}
		resetFlags(root)
		root.SetArgs(argv[1:])
		// A command that has its own input or output (such as
		// SetOut(os.Stdout)) would read or write the protocol stream
		// while "mcp" serves: all use the root's.
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			c.SetIn(nil)
			c.SetOut(nil)
			c.SetErr(nil)
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(root)
		root.SetIn(strings.NewReader("")) // never the protocol stream
		root.SetOut(stdout)
		root.SetErr(stderr)
		root.SilenceErrors, root.SilenceUsage = true, true // the result says what failed
		return root.ExecuteContext(ctx)
	}
	return a
}

// flags describes the flags of fs to package clitool. Hidden and
// deprecated flags are left out.
func flags(fs *pflag.FlagSet) []clitool.Flag {
	var out []clitool.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		sf := clitool.Flag{Name: f.Name, Usage: f.Usage, Value: value(fs, f)}
		if _, ok := f.Annotations[cobra.BashCompOneRequiredFlag]; ok {
			sf.Required = true
		}
		_, file := f.Annotations[cobra.BashCompFilenameExt]
		_, dir := f.Annotations[cobra.BashCompSubdirsInDir]
		sf.Path = file || dir
		// pflag's stringSlice reads each value as CSV; stringArray, and
		// other Values that hold strings, take each value as it is.
		sf.CSV = f.Value.Type() == "stringSlice"
		out = append(out, sf)
	})
	return out
}

// value returns the default of f as a Go value of its type.
func value(fs *pflag.FlagSet, f *pflag.Flag) any {
	var v any
	var err error
	switch name := f.Name; f.Value.Type() {
	case "bool":
		v, err = fs.GetBool(name)
	case "string":
		v, err = fs.GetString(name)
	case "int":
		v, err = fs.GetInt(name)
	case "int8":
		v, err = fs.GetInt8(name)
	case "int16":
		v, err = fs.GetInt16(name)
	case "int32":
		v, err = fs.GetInt32(name)
	case "int64":
		v, err = fs.GetInt64(name)
	case "uint":
		v, err = fs.GetUint(name)
	case "uint8":
		v, err = fs.GetUint8(name)
	case "uint16":
		v, err = fs.GetUint16(name)
	case "uint32":
		v, err = fs.GetUint32(name)
	case "uint64":
		v, err = fs.GetUint64(name)
	case "count": // a number of times given: a non-negative integer
		var n int
		n, err = fs.GetCount(name)
		v = uint(max(n, 0))
	case "float32":
		v, err = fs.GetFloat32(name)
	case "float64":
		v, err = fs.GetFloat64(name)
	case "duration":
		v, err = fs.GetDuration(name)
	case "stringSlice":
		v, err = fs.GetStringSlice(name)
	case "stringArray":
		v, err = fs.GetStringArray(name)
	case "intSlice":
		v, err = fs.GetIntSlice(name)
	case "int32Slice":
		v, err = fs.GetInt32Slice(name)
	case "int64Slice":
		v, err = fs.GetInt64Slice(name)
	case "uintSlice":
		v, err = fs.GetUintSlice(name)
	case "float32Slice":
		v, err = fs.GetFloat32Slice(name)
	case "float64Slice":
		v, err = fs.GetFloat64Slice(name)
	case "boolSlice":
		v, err = fs.GetBoolSlice(name)
	case "durationSlice":
		v, err = fs.GetDurationSlice(name)
	}
	if v != nil && err == nil {
		return v
	}
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	d := f.DefValue
	if d == "<nil>" || strings.HasPrefix(d, "[") && strings.HasSuffix(d, "]") {
		// How pflag prints an unset IP or network, and a map
		// (stringToString) or list: text the flag does not read back.
		return ""
	}
	return d // set from its text, as on the command line
}
