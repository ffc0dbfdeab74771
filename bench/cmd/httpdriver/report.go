package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/bench/internal/load"
)

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// cellMedian is the median over rounds of each figure of one cell.
type cellMedian struct {
	perSec, p50, p99 float64
	errors           int
	firstErr         string
}

func medians(res *results, server, era string, clients int) (cellMedian, bool) {
	var ps, p50, p99 []float64
	var m cellMedian
	for _, c := range res.Cells {
		if c.Server == server && c.Era == era && c.Clients == clients {
			ps, p50, p99 = append(ps, c.PerSec), append(p50, c.P50us), append(p99, c.P99us)
			m.errors += c.Errors
			m.firstErr = load.First(m.firstErr, c.FirstError)
		}
	}
	if len(ps) == 0 {
		return m, false
	}
	m.perSec, m.p50, m.p99 = median(ps), median(p50), median(p99)
	return m, true
}

func us(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

func markdown(res *results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Streamable HTTP benchmarks\n\n")
	fmt.Fprintf(&b, "Started %s, ended %s; commit %s; cells of %s each, medians over rounds; load average %s → %s.\n\n",
		res.Started.Format("2006-01-02 15:04:05Z"), res.Ended.Format("15:04:05Z"), res.Commit, res.Duration, res.Load[0], res.Load[1])
	var peers []string
	for _, sp := range res.Servers {
		if sp.Peer {
			peers = append(peers, sp.Name)
		}
	}
	for _, era := range []string{"legacy", "modern"} {
		fmt.Fprintf(&b, "## Calls, %s era\n\n", era)
		fmt.Fprintf(&b, "| server | clients | calls/s | p50 | p99 | errors |\n|---|---|---|---|---|---|\n")
		for _, sp := range res.Servers {
			for _, n := range clientCounts {
				m, ok := medians(res, sp.Name, era, n)
				if !ok {
					continue
				}
				errs := fmt.Sprint(m.errors)
				if m.errors > 0 {
					errs += ": " + strings.ReplaceAll(trunc(m.firstErr, 90), "|", "/")
				}
				fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %s | %s |\n", sp.Name, n, m.perSec, us(m.p50), us(m.p99), errs)
			}
		}
		for _, ours := range echoServers(res) {
			ratios(&b, res, era, ours, peers)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "## Manifest tools and the fork/exec floor\n\n")
	fmt.Fprintf(&b, "`mcpship serve --transport http` with a manifest tool that runs `%s`, beside the driver running it directly.\n\n", res.Program)
	fmt.Fprintf(&b, "| | clients | calls/s | p50 | p99 |\n|---|---|---|---|---|\n")
	for _, n := range clientCounts {
		f, _ := medians(res, "fork/exec floor", "-", n)
		fmt.Fprintf(&b, "| fork/exec floor | %d | %.0f | %s | %s |\n", n, f.perSec, us(f.p50), us(f.p99))
		for _, era := range []string{"legacy", "modern"} {
			m, ok := medians(res, "mcpship-manifest", era, n)
			if ok {
				fmt.Fprintf(&b, "| mcpship-manifest, %s | %d | %.0f (%.2f× floor) | %s | %s |\n", era, n, m.perSec, m.perSec/f.perSec, us(m.p50), us(m.p99))
			}
		}
	}
	fmt.Fprintf(&b, "\n## Memory per open legacy session\n\n")
	fmt.Fprintf(&b, "Resident memory growth of the server after opening the sessions (initialize and notifications/initialized each, none ended), divided by their number; median over rounds.\n\n")
	fmt.Fprintf(&b, "| server | sessions opened | ids minted | KB per session |\n|---|---|---|---|\n")
	per := map[string]float64{}
	for _, sp := range res.Servers {
		var xs []float64
		opened, kept, errText := 0, false, ""
		for _, s := range res.Sessions {
			if s.Server == sp.Name {
				xs = append(xs, s.BytesPer)
				opened = s.Opened
				kept = kept || s.Kept
				errText = load.First(errText, s.FirstError)
			}
		}
		if len(xs) == 0 {
			continue
		}
		per[sp.Name] = median(xs)
		note := ""
		if errText != "" {
			note = " (" + strings.ReplaceAll(trunc(errText, 60), "|", "/") + ")"
		}
		fmt.Fprintf(&b, "| %s | %d%s | %v | %.1f |\n", sp.Name, opened, note, kept, median(xs)/1024)
	}
	fmt.Fprintf(&b, "\n## Time to first byte of a GET stream\n\n")
	fmt.Fprintf(&b, "A legacy session's GET stream (Accept: text/event-stream), opened 30 times per round; median. \"none\": no body byte within a second.\n\n")
	fmt.Fprintf(&b, "| server | status | first response byte | first body byte |\n|---|---|---|---|\n")
	for _, sp := range res.Servers {
		var hs, bs []float64
		status, none := 0, false
		for _, t := range res.TTFB {
			if t.Server == sp.Name {
				hs = append(hs, t.HeaderUS)
				bs = append(bs, t.BodyUS)
				status = t.Status
				none = none || t.BodyUS < 0
			}
		}
		if len(hs) == 0 {
			continue
		}
		body := us(median(bs))
		if none {
			body = "none"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", sp.Name, status, us(median(hs)), body)
	}
	return b.String()
}

func trunc(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// echoServers are mcpship's echo server and the others that -also adds.
func echoServers(res *results) []string {
	names := []string{"mcpship"}
	for _, sp := range res.Servers {
		if sp.Also {
			names = append(names, sp.Name)
		}
	}
	return names
}

// ratios writes the figures of the echo server ours against the faster
// peer, then against each peer.
func ratios(b *strings.Builder, res *results, era, ours string, peers []string) {
	fmt.Fprintf(b, "\n%s against the faster peer that answered every call (calls/s: higher is better; latency: ratio of %s's to the peer's, lower is better):\n\n", ours, ours)
	fmt.Fprintf(b, "| clients | faster peer | calls/s ratio | p50 ratio | p99 ratio |\n|---|---|---|---|---|\n")
	for _, n := range clientCounts {
		m, ok := medians(res, ours, era, n)
		if !ok {
			continue
		}
		best, bestName := cellMedian{}, ""
		for _, p := range peers {
			pm, ok := medians(res, p, era, n)
			if ok && pm.errors == 0 && pm.perSec > best.perSec {
				best, bestName = pm, p
			}
		}
		if bestName == "" {
			fmt.Fprintf(b, "| %d | none answered | | | |\n", n)
			continue
		}
		fmt.Fprintf(b, "| %d | %s | %.2f× | %.2f× | %.2f× |\n", n, bestName, m.perSec/best.perSec, m.p50/best.p50, m.p99/best.p99)
	}
	fmt.Fprintf(b, "\n%s against each peer that answered every call (calls/s, p50, p99 ratios):\n\n", ours)
	fmt.Fprintf(b, "| peer | 1 client | 16 clients | 64 clients |\n|---|---|---|---|\n")
	for _, p := range peers {
		fmt.Fprintf(b, "| %s |", p)
		for _, n := range clientCounts {
			m, ok1 := medians(res, ours, era, n)
			pm, ok2 := medians(res, p, era, n)
			if !ok1 || !ok2 || pm.errors > 0 {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(b, " %.2f× / %.2f× / %.2f× |", m.perSec/pm.perSec, m.p50/pm.p50, m.p99/pm.p99)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}
