package cobraadapter

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// AddTools registers the commands opts chooses as tools of srv. newRoot
// is called once here to read the commands and flags, then once per call.
func AddTools(srv *mcp.Server, newRoot func() *cobra.Command, opts Options) error {
	o, tools := opts.shared()
	return clitool.AddTools(srv, sharedApp(newRoot), tools, o)
}

// sharedApp describes an app to package clitool.
func sharedApp(newRoot func() *cobra.Command) clitool.App {
	root := newRoot()
	a := clitool.App{Pkg: "cobraadapter", Name: root.Name()}
	a.Find = func(path []string) (*clitool.Command, error) {
		cmd := root
		for _, name := range path {
			var next *cobra.Command
			for _, c := range cmd.Commands() {
				if c.Name() == name || c.HasAlias(name) {
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
		out := &clitool.Command{Usage: cmd.Short, Description: cmd.Long}
		for c := cmd; c != root; c = c.Parent() {
			out.Path = append([]string{c.Name()}, out.Path...)
		}
		if _, args, ok := strings.Cut(cmd.Use, " "); ok {
			out.ArgsUsage = args
		}
		out.Flags = append(flags(cmd.LocalFlags()), flags(cmd.InheritedFlags())...)
		return out, nil
	}
	a.Run = func(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
		root := newRoot()
		root.SetArgs(argv[1:])
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
		switch f.Value.Type() {
		case "stringSlice":
			sf.CSV = true
		case "stringArray":
		default:
			if _, ok := sf.Value.([]string); ok {
				sf.CSV = true // a slice of another type: its items are CSV too
			}
		}
		out = append(out, sf)
	})
	return out
}

// value returns the default of f as a Go value of its type.
func value(fs *pflag.FlagSet, f *pflag.Flag) any {
	get := map[string]func(string) (any, error){
		"bool":          wrap(fs.GetBool),
		"string":        wrap(fs.GetString),
		"int":           wrap(fs.GetInt),
		"int8":          wrap(fs.GetInt8),
		"int16":         wrap(fs.GetInt16),
		"int32":         wrap(fs.GetInt32),
		"int64":         wrap(fs.GetInt64),
		"uint":          wrap(fs.GetUint),
		"uint8":         wrap(fs.GetUint8),
		"uint16":        wrap(fs.GetUint16),
		"uint32":        wrap(fs.GetUint32),
		"uint64":        wrap(fs.GetUint64),
		"float32":       wrap(fs.GetFloat32),
		"float64":       wrap(fs.GetFloat64),
		"duration":      wrap(fs.GetDuration),
		"stringSlice":   wrap(fs.GetStringSlice),
		"stringArray":   wrap(fs.GetStringArray),
		"intSlice":      wrap(fs.GetIntSlice),
		"int32Slice":    wrap(fs.GetInt32Slice),
		"int64Slice":    wrap(fs.GetInt64Slice),
		"uintSlice":     wrap(fs.GetUintSlice),
		"float32Slice":  wrap(fs.GetFloat32Slice),
		"float64Slice":  wrap(fs.GetFloat64Slice),
		"boolSlice":     wrap(fs.GetBoolSlice),
		"durationSlice": wrap(fs.GetDurationSlice),
		// A count is a number of times given: a non-negative integer.
		"count": func(name string) (any, error) { n, err := fs.GetCount(name); return uint(max(n, 0)), err },
	}[f.Value.Type()]
	if get != nil {
		if v, err := get(f.Name); err == nil {
			return v
		}
	}
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	if f.DefValue == "<nil>" { // how pflag prints an unset IP or network
		return ""
	}
	return f.DefValue // set from its text, as on the command line
}

func wrap[T any](get func(string) (T, error)) func(string) (any, error) {
	return func(name string) (any, error) { return get(name) }
}
