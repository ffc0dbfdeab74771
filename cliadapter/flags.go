package cliadapter

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/clitool"
)

// flags describes flags to package clitool. Hidden flags, and flags of
// other types than those below, are left out; they keep their defaults.
func flags(fs []cli.Flag) []clitool.Flag {
	var out []clitool.Flag
	for _, f := range fs {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() || len(f.Names()) == 0 {
			continue
		}
		sf := clitool.Flag{Name: f.Names()[0]}
		switch f := f.(type) {
		case *cli.BoolFlag:
			sf.Value = f.Value
		case *cli.StringFlag:
			sf.Value = f.Value
		case *cli.PathFlag:
			sf.Value, sf.Path = f.Value, true
		case *cli.IntFlag:
			sf.Value = f.Value
		case *cli.Int64Flag:
			sf.Value = f.Value
		case *cli.UintFlag:
			sf.Value = f.Value
		case *cli.Uint64Flag:
			sf.Value = f.Value
		case *cli.Float64Flag:
			sf.Value = f.Value
		case *cli.DurationFlag:
			sf.Value = f.Value
		case *cli.StringSliceFlag:
			sf.Value = []string(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		case *cli.IntSliceFlag:
			sf.Value = []int(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		case *cli.Int64SliceFlag:
			sf.Value = []int64(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		case *cli.UintSliceFlag:
			sf.Value = []uint(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		case *cli.Uint64SliceFlag:
			sf.Value = []uint64(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		case *cli.Float64SliceFlag:
			sf.Value = []float64(nil)
			if f.Value != nil {
				sf.Value = f.Value.Value()
			}
		default:
			continue
		}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			sf.Usage, sf.FromEnv = d.GetUsage(), len(d.GetEnvVars()) > 0
		}
		if r, ok := f.(cli.RequiredFlag); ok {
			sf.Required = r.IsRequired()
		}
		out = append(out, sf)
	}
	return out
}
