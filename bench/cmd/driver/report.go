package main

import (
	"fmt"
	"slices"
	"strings"
)

// report renders the results as markdown: medians over rounds, ratios to
// the reference, the targets, and every run's figures.
func report(res *results) string {
	rp := &reporter{res: res, metrics: metrics()}
	for _, s := range res.Servers {
		rp.names = append(rp.names, s.Name)
	}
	rp.header()
	rp.medians()
	rp.outcomes()
	rp.targets()
	rp.moreTargets()
	rp.everyRun()
	return rp.b.String()
}

// A reporter writes one report.
type reporter struct {
	b       strings.Builder
	res     *results
	names   []string // the servers, the reference first
	metrics []metric
}

func (rp *reporter) w(format string, args ...any) { fmt.Fprintf(&rp.b, format, args...) }

// med is the median of f over the rounds of server that have it.
func (rp *reporter) med(server string, f func(*run) (float64, bool)) (float64, bool) {
	var xs []float64
	for _, r := range rp.res.Runs {
		if r.Server == server {
			if v, ok := f(r); ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return median(xs), true
}

// get is med without its flag.
func (rp *reporter) get(n string, f func(*run) (float64, bool)) float64 {
	v, _ := rp.med(n, f)
	return v
}

func (rp *reporter) has(n string) bool { return slices.Contains(rp.names, n) }

func okSession(r *run) bool { return r.Session.Err == "" }
func okCold(r *run) bool    { return r.Cold.Err == "" }

// bigOf is r's call of mib MiB, or nil.
func bigOf(r *run, mib int) *bigResult {
	for i := range r.Big {
		if r.Big[i].MiB == mib {
			return &r.Big[i]
		}
	}
	return nil
}

// A metric is a row of the medians table.
type metric struct {
	label string
	fmt   string
	f     func(*run) (float64, bool)
}

// metrics are the rows of the medians table; targets refers to some by
// their index.
func metrics() []metric {
	metrics := []metric{
		{"cold: spawn→initialize, median (ms)", "%.2f", func(r *run) (float64, bool) { return r.Cold.InitMed, okCold(r) }},
		{"cold: spawn→initialize, p90 (ms)", "%.2f", func(r *run) (float64, bool) { return r.Cold.InitP90, okCold(r) }},
		{"cold: spawn→first tools/list, median (ms)", "%.2f", func(r *run) (float64, bool) { return r.Cold.ListMed, okCold(r) }},
		{"cold: spawn→first tools/list, p90 (ms)", "%.2f", func(r *run) (float64, bool) { return r.Cold.ListP90, okCold(r) }},
		{"cold: spawn→exit after stdin EOF, median (ms)", "%.2f", func(r *run) (float64, bool) { return r.Cold.ExitMed, okCold(r) }},
		{"sequential calls/s", "%.0f", func(r *run) (float64, bool) { return r.Session.Seq.CallsPerSec, okSession(r) }},
		{"sequential p50 (µs)", "%.1f", func(r *run) (float64, bool) { return r.Session.Seq.P50us, okSession(r) }},
		{"sequential p99 (µs)", "%.1f", func(r *run) (float64, bool) { return r.Session.Seq.P99us, okSession(r) }},
		{"sequential: server CPU per call (µs)", "%.1f", func(r *run) (float64, bool) { return r.Session.Seq.CPUus, okSession(r) }},
		{"pipelined calls/s", "%.0f", func(r *run) (float64, bool) { return r.Session.Pipe.CallsPerSec, okSession(r) }},
		{"pipelined: server CPU per call (µs)", "%.1f", func(r *run) (float64, bool) { return r.Session.Pipe.CPUus, okSession(r) }},
		{"pipelined: server write(2) calls per reply", "%.2f", func(r *run) (float64, bool) { return r.Session.Pipe.WritesPerCall, okSession(r) }},
		{"peak RSS after seq+pipelined, VmHWM (MiB)", "%.1f", func(r *run) (float64, bool) { return mib(r.Session.HWM), okSession(r) }},
		{"RSS then: private, RssAnon (MiB)", "%.1f", func(r *run) (float64, bool) { return mib(r.Session.Anon), okSession(r) && r.Session.Anon >= 0 }},
		{"RSS then: the binary's mapped pages, RssFile (MiB)", "%.1f", func(r *run) (float64, bool) { return mib(r.Session.File), okSession(r) && r.Session.File >= 0 }},
	}
	for _, m := range []int{8, 20} {
		metrics = append(metrics,
			metric{fmt.Sprintf("%d MiB call: time when ok (ms)", m), "%.0f", func(r *run) (float64, bool) {
				br := bigOf(r, m)
				return func() (float64, bool) {
					if br == nil || br.Outcome != "ok" {
						return 0, false
					}
					return br.Ms, true
				}()
			}},
			metric{fmt.Sprintf("%d MiB call: VmHWM after (MiB)", m), "%.1f", func(r *run) (float64, bool) {
				br := bigOf(r, m)
				if br == nil || br.HWM <= 0 {
					return 0, false
				}
				return mib(br.HWM), true
			}})
	}
	return metrics
}

// header says when, where and how the run was made.
func (rp *reporter) header() {
	p := rp.res.Params
	rp.w("# Benchmark run %s\n\n", rp.res.Started.Format("2006-01-02T15:04:05Z"))
	rp.w("Host: %d CPUs, Linux %s, %s. Load average (1/5/15 min) at start %s, at end %s; duration %s.",
		rp.res.Host.CPUs, rp.res.Host.Kernel, rp.res.Host.GoVersion, rp.res.Host.LoadStart, rp.res.Host.LoadEnd, rp.res.Ended.Sub(rp.res.Started).Round(1e9))
	if p.Commit != "" {
		rp.w(" mcpship at %s.", p.Commit)
	}
	rp.w("\n\n%d rounds; each round runs every server once, the order rotated by one each round. "+
		"Per round: %d cold spawns of each server, interleaved across servers (median and p90 of those); then one process per server, all alive at once: "+
		"%d untimed warm-up calls each, then %d sequential and then %d pipelined calls each, cut into %d chunks that take turns across the servers; "+
		"then a fresh process per large message. Figures below are the median over rounds; ratio = server / ref.\n\n",
		p.Rounds, p.Cold, p.Warm, p.Seq, p.Pipe, p.Chunks)
}

// medians writes the table of medians and ratios to the reference.
func (rp *reporter) medians() {
	names := rp.names
	ref := names[0]
	rp.w("## Medians and ratios to the reference\n\n| metric |")
	for _, n := range names {
		rp.w(" %s |", n)
	}
	for _, n := range names[1:] {
		rp.w(" %s/%s |", n, ref)
	}
	rp.w("\n|---|")
	rp.w("%s\n", strings.Repeat("---:|", 2*len(names)-1))
	for _, m := range rp.metrics {
		rp.w("| %s |", m.label)
		vals := map[string]float64{}
		for _, n := range names {
			v, ok := rp.med(n, m.f)
			if !ok {
				rp.w(" — |")
				continue
			}
			vals[n] = v
			rp.w(" "+m.fmt+" |", v)
		}
		for _, n := range names[1:] {
			v, ok1 := vals[n]
			rv, ok2 := vals[ref]
			if !ok1 || !ok2 || rv == 0 {
				rp.w(" — |")
				continue
			}
			rp.w(" %.2f× |", v/rv)
		}
		rp.w("\n")
	}
}

// outcomes ends the medians table with the binary sizes and whether every
// round's replies were right.
func (rp *reporter) outcomes() {
	names, ref := rp.names, rp.names[0]
	rp.w("| binary size (MiB) |")
	for _, n := range names {
		rp.w(" %.2f |", mib(int64(rp.res.Sizes[n])))
	}
	for _, n := range names[1:] {
		rp.w(" %.2f× |", float64(rp.res.Sizes[n])/float64(rp.res.Sizes[ref]))
	}
	rp.w("\n")
	rp.w("| all replies right (id once, exact echo), every round |")
	for _, n := range names {
		ok := true
		for _, r := range rp.res.Runs {
			if r.Server == n && (r.Session.Err != "" || r.Cold.Err != "") {
				ok = false
			}
		}
		rp.w(" %s |", yes(ok))
	}
	rp.w("%s\n", strings.Repeat(" |", len(names)-1))
	rp.w("| pipelined replies in request order, every round |")
	for _, n := range names {
		in := true
		for _, r := range rp.res.Runs {
			if r.Server == n && !r.Session.Pipe.InOrder {
				in = false
			}
		}
		rp.w(" %s |", yes(in))
	}
	rp.w("%s\n", strings.Repeat(" |", len(names)-1))
	for _, m := range []int{8, 20} {
		rp.w("| %d MiB call: outcome, alive after (every round) |", m)
		for _, n := range names {
			var outs []string
			for _, r := range rp.res.Runs {
				if r.Server == n {
					if br := bigOf(r, m); br != nil {
						outs = append(outs, br.Outcome+", alive "+yes(br.Alive))
					}
				}
			}
			outs = slices.Compact(outs)
			if len(outs) == 0 {
				rp.w(" — |")
			} else {
				rp.w(" %s |", strings.Join(outs, " / "))
			}
		}
		rp.w("%s\n", strings.Repeat(" |", len(names)-1))
	}
}

// targets writes the issues' targets for start-up, calls and memory.
func (rp *reporter) targets() {
	metrics, get, has := rp.metrics, rp.get, rp.has
	rp.w("\n## Targets (issue 6; the session's, issue 11)\n\n")
	rp.w("mcpship = the echo server on package mcp (like for like); mcpship-serve = the real `mcpship serve` binary with its self tool.\n\n")
	rp.w("| target | measured | verdict |\n|---|---|---|\n")
	initMed := metrics[0].f
	listMed := metrics[2].f
	for _, n := range []string{"mcpship", "mcpship-serve"} {
		if !has(n) || !has("ref") {
			continue
		}
		for _, sp := range []struct {
			what string
			f    func(*run) (float64, bool)
		}{{"spawn→initialize", initMed}, {"spawn→first tools/list", listMed}} {
			v, rv := get(n, sp.f), get("ref", sp.f)
			rp.w("| %s %s ≤ 1.3× ref | %.2f ms vs %.2f ms = %.2f× | %s |\n", n, sp.what, v, rv, v/rv, atMost(v/rv, 1.3))
			if has("go-sdk") {
				g := get("go-sdk", sp.f)
				rp.w("| %s %s ≤ 0.5× go-sdk | %.2f ms vs %.2f ms = %.2f× | %s |\n", n, sp.what, v, g, v/g, atMost(v/g, 0.5))
			}
		}
	}
	if has("mcpship") && has("ref") {
		v, rv := get("mcpship", metrics[5].f), get("ref", metrics[5].f)
		rp.w("| sequential calls/s ≥ 0.8× ref | %.0f vs %.0f = %.2f× | %s |\n", v, rv, v/rv, atLeast(v/rv, 0.8))
		v, rv = get("mcpship", metrics[9].f), get("ref", metrics[9].f)
		rp.w("| pipelined calls/s ≥ 0.3× ref (calls run concurrently) | %.0f vs %.0f = %.2f× | %s |\n", v, rv, v/rv, atLeast(v/rv, 0.3))
		if has("mcp-go") {
			m := get("mcp-go", metrics[9].f)
			rp.w("| pipelined calls/s ≥ 3× mcp-go | %.0f vs %.0f = %.2f× | %s |\n", v, m, v/m, atLeast(v/m, 3))
		}
		if has("ref-goroutine") {
			for _, i := range []int{5, 9} {
				v, rv = get("ref-goroutine", metrics[i].f), get("ref", metrics[i].f)
				rp.w("| the model's floor: ref-goroutine (ref with a goroutine per call) %s | %.0f vs %.0f = %.2f× ref | — |\n", metrics[i].label, v, rv, v/rv)
			}
		}
		for _, n := range []string{"mcpship", "mcpship-serve"} {
			if has(n) {
				v, rv = get(n, metrics[12].f), get("ref", metrics[12].f)
				rp.w("| %s peak RSS ≤ 1.5× ref | %.1f MiB vs %.1f MiB = %.2f× | %s |\n", n, v, rv, v/rv, atMost(v/rv, 1.5))
			}
		}
	}
}

// moreTargets writes the targets for the binary, the large message, the
// manifest call and init.
func (rp *reporter) moreTargets() {
	has := rp.has
	if has("mcpship-serve") {
		sz := mib(int64(rp.res.Sizes["mcpship-serve"]))
		rp.w("| mcpship binary ≤ 6 MiB | %.2f MiB (%d bytes) | %s |\n", sz, rp.res.Sizes["mcpship-serve"], atMost(sz/6, 1))
	}
	for _, n := range []string{"mcpship", "mcpship-serve"} {
		if !has(n) {
			continue
		}
		var outs []string
		clean := true
		for _, r := range rp.res.Runs {
			if r.Server == n {
				if br := bigOf(r, 20); br != nil {
					outs = append(outs, fmt.Sprintf("%s in %.0f ms, alive %s", br.Outcome, br.Ms, yes(br.Alive)))
					clean = clean && br.Outcome == "error-reply" && br.Alive
				}
			}
		}
		if len(outs) > 0 {
			v := "met"
			if !clean {
				v = "**missed**"
			}
			rp.w("| %s 20 MiB → clean error reply, session alive | %s | %s |\n", n, strings.Join(slices.Compact(outs), "; "), v)
		}
	}
	if m := rp.res.Manifest; m != nil {
		switch {
		case m.Pending != "":
			rp.w("| manifest call ≤ 1.2× bare fork/exec | pending: %s | pending |\n", m.Pending)
		case m.Err != "":
			rp.w("| manifest call ≤ 1.2× bare fork/exec | error: %s | not measured |\n", m.Err)
		default:
			rp.w("| manifest call ≤ 1.2× bare fork/exec (`%s`, %d each, alternating) | %.3f ms vs %.3f ms = %.2f× (p90 %.3f vs %.3f) | %s |\n",
				m.Program, m.N, m.CallMed, m.ExecMed, m.CallMed/m.ExecMed, m.CallP90, m.ExecP90, atMost(m.CallMed/m.ExecMed, 1.2))
		}
	}
	if in := rp.res.Init; in != nil {
		if in.Err != "" {
			rp.w("| `init` into a 1 MiB config ≤ 20 ms | error: %s | not measured |\n", in.Err)
		} else {
			rp.w("| `init` into a 1 MiB config (%d bytes, %d servers) ≤ 20 ms, whole process | %.2f ms median, p90 %.2f, CPU %.2f ms (`mcpship version`: %.2f ms) | %s |\n",
				in.ConfigSize, in.Servers, in.Med, in.P90, in.CPUMed, in.VersionMed, atMost(in.Med/20, 1))
		}
	}

}

// everyRun writes each run's figures.
func (rp *reporter) everyRun() {
	names := rp.names
	rp.w("\n## Every run\n\n| server | round | load | init med ms | list med ms | seq calls/s | seq p50 µs | seq p99 µs | seq cpu µs | pipe calls/s | pipe cpu µs | in order | HWM MiB | error |\n")
	rp.w("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	for _, n := range names {
		for _, r := range rp.res.Runs {
			if r.Server != n {
				continue
			}
			s := r.Session
			e := strings.TrimSpace(r.Cold.Err + " " + s.Err)
			rp.w("| %s | %d | %s | %.2f | %.2f | %.0f | %.1f | %.1f | %.1f | %.0f | %.1f | %s | %.1f | %s |\n", n, r.Round, r.Load,
				r.Cold.InitMed, r.Cold.ListMed, s.Seq.CallsPerSec, s.Seq.P50us, s.Seq.P99us, s.Seq.CPUus,
				s.Pipe.CallsPerSec, s.Pipe.CPUus, yes(s.Pipe.InOrder), mib(s.HWM), cell(e))
		}
	}
	rp.w("\n| server | round | MiB | outcome | ms | alive after | HWM MiB | exit | detail | stderr |\n|---|---:|---:|---|---:|---|---:|---|---|---|\n")
	for _, n := range names {
		for _, r := range rp.res.Runs {
			if r.Server != n {
				continue
			}
			for _, br := range r.Big {
				rp.w("| %s | %d | %d | %s | %.0f | %s | %.1f | %s | %s | %s |\n", n, r.Round, br.MiB, br.Outcome, br.Ms, yes(br.Alive),
					mib(br.HWM), br.Exit, cell(br.Detail), cell(br.Stderr))
			}
		}
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}

func atMost(ratio, limit float64) string {
	if ratio <= limit {
		return "met"
	}
	return fmt.Sprintf("**missed** by %.0f%%", (ratio/limit-1)*100)
}

func atLeast(ratio, limit float64) string {
	if ratio >= limit {
		return "met"
	}
	return fmt.Sprintf("**missed** by %.0f%%", (1-ratio/limit)*100)
}
