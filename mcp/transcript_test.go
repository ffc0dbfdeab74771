package mcp

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var update = flag.Bool("update", false, "rewrite the server lines of the golden transcripts in testdata")

// A transcript is a golden wire exchange, one file in testdata/*.txt:
//
//	# comment
//	option max-message-bytes 200
//	> a line the client sends
//	< a line the server must send in reply
//	close
//	< a line the server must send after its input is closed
//
// After each client line the test reads as many server lines as follow it
// (in any order, since calls run concurrently) before sending the next.
// "close" closes the server's input; the server must then write exactly the
// lines that follow and end the session. The literal text {BIG:n} in a
// client line stands for n bytes of 'x'. "option resources 1" gives the
// server testResources, "option shape-tool 1" the tool of addShapeTool,
// "option forward 1" a notifyingProxy.
type transcript struct {
	opts      ServerOptions
	shapeTool bool // option shape-tool 1: addShapeTool
	forward   bool // option forward 1: a notifyingProxy
	steps     []step
}

type step struct {
	send   string   // client line, or "" for close
	expect []string // server lines
	close  bool
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			tr := readTranscript(t, file)
			// In a bubble, the sleep tool and the drain run on a fake
			// clock that moves only when every goroutine waits.
			synctest.Test(t, func(t *testing.T) {
				got := runTranscript(t, tr)
				if *update {
					writeTranscript(t, file, got)
				}
			})
		})
	}
}

func readTranscript(t *testing.T, file string) *transcript {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := &transcript{}
	for n, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "option "):
			f := strings.Fields(line)
			v, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 3 || err != nil {
				t.Fatalf("%s:%d: want option NAME INT", file, n+1)
			}
			switch f[1] {
			case "max-message-bytes":
				tr.opts.MaxMessageBytes = v
			case "page-size":
				tr.opts.PageSize = v
			case "max-concurrent-calls":
				tr.opts.MaxConcurrentCalls = v
			case "shape-tool":
				tr.shapeTool = v != 0
			case "forward":
				tr.forward = v != 0
			case "resources":
				if v != 0 {
					tr.opts.Resources = testResources{}
				}
			default:
				t.Fatalf("%s:%d: unknown option %s", file, n+1, f[1])
			}
		case strings.HasPrefix(line, "> "):
			tr.steps = append(tr.steps, step{send: expandBig(line[2:])})
		case line == "close":
			tr.steps = append(tr.steps, step{close: true})
		case strings.HasPrefix(line, "< "):
			if len(tr.steps) == 0 {
				t.Fatalf("%s:%d: server line before any client line", file, n+1)
			}
			last := &tr.steps[len(tr.steps)-1]
			last.expect = append(last.expect, line[2:])
		default:
			t.Fatalf("%s:%d: unrecognised line %q", file, n+1, line)
		}
	}
	return tr
}

func expandBig(s string) string {
	for {
		i := strings.Index(s, "{BIG:")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}")
		n, _ := strconv.Atoi(s[i+5 : i+j])
		s = s[:i] + strings.Repeat("x", n) + s[i+j+1:]
	}
}

// runTranscript plays the client side against a test server and returns
// the server lines read after each step.
func runTranscript(t *testing.T, tr *transcript) [][]string {
	t.Helper()
	opts := tr.opts
	opts.DrainTimeout = 5 * time.Second
	var fwd *notifyingProxy
	if tr.forward {
		fwd = &notifyingProxy{}
		opts.proxy = fwd
	}
	srv := newTestServer(t, &opts)
	if fwd != nil {
		fwd.srv = srv
	}
	if tr.shapeTool {
		addShapeTool(t, srv)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got [][]string
	for i, st := range tr.steps {
		if st.close {
			inW.Close()
		} else if _, err := io.WriteString(inW, st.send+"\n"); err != nil {
			t.Fatalf("step %d: writing: %v", i+1, err)
		}
		var batch []string
		for range st.expect {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("step %d: the server ended its output; still expected:\n%s", i+1, strings.Join(st.expect[len(batch):], "\n"))
				}
				batch = append(batch, l)
			case <-time.After(5 * time.Second):
				t.Fatalf("step %d (%.80s): timed out; got %d of %d lines:\n%s", i+1, st.send, len(batch), len(st.expect), strings.Join(batch, "\n"))
			}
		}
		got = append(got, batch)
		if !*update {
			want, have := slices.Clone(st.expect), slices.Clone(batch)
			slices.Sort(want)
			slices.Sort(have)
			if !slices.Equal(want, have) {
				t.Errorf("step %d: after > %.200s\n got:\n%s\nwant:\n%s", i+1, st.send, strings.Join(batch, "\n"), strings.Join(st.expect, "\n"))
			}
		}
	}
	if !tr.steps[len(tr.steps)-1].close {
		inW.Close()
	}
	var extra []string
	for l := range lines {
		extra = append(extra, l)
	}
	if len(extra) > 0 && !*update {
		t.Errorf("unexpected server lines at the end of the session:\n%s", strings.Join(extra, "\n"))
	}
	if err := <-served; err != nil {
		t.Errorf("Serve returned %v, want nil", err)
	}
	return got
}

func writeTranscript(t *testing.T, file string, got [][]string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	stepIdx := -1
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "< ") {
			continue
		}
		out = append(out, line)
		if strings.HasPrefix(line, "> ") || line == "close" {
			stepIdx++
			for _, l := range got[stepIdx] {
				out = append(out, "< "+l)
			}
		}
	}
	if err := os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println("updated", file)
}
