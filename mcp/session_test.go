package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// pipes serves srv over in-memory pipes until ctx is done or the input is
// closed. The session's end goes to served.
type pipes struct {
	inW    *io.PipeWriter
	outR   *io.PipeReader
	served chan error
}

func servePipes(ctx context.Context, srv *Server) *pipes {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipes{inW: inW, outR: outR, served: make(chan error, 1)}
	go func() {
		p.served <- srv.Serve(ctx, inR, outW)
		outW.Close()
	}()
	return p
}

func (p *pipes) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.inW, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func TestShutdownBoundsTheWaitForCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newTestServer(t, &ServerOptions{ShutdownTimeout: 100 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		p := servePipes(ctx, srv)
		r := bufio.NewReader(p.outR)
		p.send(t, initLine)
		r.ReadString('\n')
		p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
		synctest.Wait()
		start := time.Now()
		cancel()
		go io.Copy(io.Discard, r)
		if err := <-p.served; err != nil {
			t.Errorf("Serve after cancel: %v, want nil", err)
		}
		if d := time.Since(start); d != 100*time.Millisecond {
			t.Errorf("Serve took %v to stop; the bound is 100ms", d)
		}
		p.inW.Close()
	})
}

// TestSlowCallDoesNotHoldUpReading checks that messages after a call that
// runs for a long time are read and served meanwhile: a ping is answered
// and a call is cancelled.
func TestSlowCallDoesNotHoldUpReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := servePipes(context.Background(), newTestServer(t, nil))
		r := bufio.NewReader(p.outR)
		next := func() string {
			t.Helper()
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		p.send(t, initLine)
		next()
		p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300}}}`)
		synctest.Wait()
		p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if l := next(); !strings.Contains(l, `"id":2,`) {
			t.Fatalf("first reply %s, want the ping's while the call sleeps", l)
		}
		if l := next(); !strings.Contains(l, `"id":1,`) || !strings.Contains(l, "slept") {
			t.Fatalf("second reply %s, want the call's", l)
		}
		p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10000}}}`)
		synctest.Wait()
		p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
		p.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
		if l := next(); !strings.Contains(l, `"id":4,`) {
			t.Fatalf("reply %s, want the ping's", l)
		}
		p.inW.Close()
		if l, err := r.ReadString('\n'); err != io.EOF {
			t.Errorf("unexpected line after the cancelled call: %s (%v)", l, err)
		}
		if err := <-p.served; err != nil {
			t.Fatal(err)
		}
	})
}

// TestClientThatStopsReadingDoesNotBlockShutdown half-writes a 20 MiB
// result to a client that reads nothing more, then ends the session by
// cancelling its context (SIGTERM in mcpship serve) or closing its input:
// Serve must return within ShutdownTimeout or DrainTimeout.
func TestClientThatStopsReadingDoesNotBlockShutdown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bound time.Duration
	}{{"cancel", 2 * time.Second}, {"eof", 10 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newTestServer(t, nil)
				if err := srv.AddTool(Tool{Name: "big"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
					return TextResult(strings.Repeat("x", 20<<20)), nil
				}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := servePipes(ctx, srv)
				r := bufio.NewReader(p.outR)
				p.send(t, initLine)
				r.ReadString('\n')
				p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`)
				if _, err := r.Read(make([]byte, 4096)); err != nil { // the reply has begun
					t.Fatal(err)
				}
				synctest.Wait() // the writer is blocked: nobody reads
				start := time.Now()
				if tc.name == "cancel" {
					cancel()
				} else {
					p.inW.Close()
				}
				err := <-p.served
				if d := time.Since(start); d != tc.bound {
					t.Errorf("Serve returned after %v; the bound is %v", d, tc.bound)
				}
				if err == nil || !strings.Contains(err.Error(), "not reading") {
					t.Errorf("Serve = %v, want an error saying the client is not reading", err)
				}
				p.outR.Close() // unblocks the abandoned write
				p.inW.Close()
			})
		})
	}
}

// TestClientThatSendsWithoutReadingIsSlowedDown sends many pings and reads
// none of the replies: the replies waiting to be written are bounded, so
// the server stops reading until the client reads, and then every reply
// arrives.
func TestClientThatSendsWithoutReadingIsSlowedDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 60_000 // about 2.5 MB of replies
		srv := newTestServer(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := servePipes(ctx, srv)
		r := bufio.NewReader(p.outR)
		p.send(t, initLine)
		r.ReadString('\n')
		var sent atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range n {
				if _, err := fmt.Fprintf(p.inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1); err != nil {
					return
				}
				sent.Add(1)
			}
		}()
		synctest.Wait() // everything is blocked: the client reads nothing
		if got := sent.Load(); got == n {
			t.Fatalf("all %d pings were read while no reply was: the replies queue without bound", n)
		}
		for i := range n {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reply %d: %v", i+1, err)
			}
			if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i+1); strings.TrimSpace(line) != want {
				t.Fatalf("reply %d = %s, want %s", i+1, line, want)
			}
		}
		<-done
		p.inW.Close()
		if err := <-p.served; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

// TestOutputIsValidUTF8 checks that a request id with invalid UTF-8, which
// is echoed, does not make the reply invalid UTF-8.
func TestOutputIsValidUTF8(t *testing.T) {
	input := initLine + "\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":\"u4\xff\",\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":\"p\xc3\",\"method\":\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{\"steps\":1},\"_meta\":{\"progressToken\":\"t\xfe\"}}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":{\"\xff\":1},\"method\":\"ping\"}\n"
	lines := rawSession(t, newTestServer(t, nil), input)
	want := []string{
		`{"jsonrpc":"2.0","id":"u4\ufffd","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step","progress":1,"progressToken":"t\ufffd","total":1}}`,
		`{"jsonrpc":"2.0","id":"p\ufffd","result":{"content":[{"type":"text","text":"done"}]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, got {\"\ufffd\":1}"}}`,
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want)+1, strings.Join(lines, "\n"))
	}
	got := lines[1:]
	for _, l := range got {
		if !utf8.ValidString(l) || !json.Valid([]byte(l)) {
			t.Errorf("not valid UTF-8 JSON: %q", l)
		}
	}
	slices.Sort(got) // the call and the ping reply run concurrently
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestIDsCompareByValue(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`"x"`, `"\u0078"`, true},
		{`"é"`, `"\u00e9"`, true},
		{`"\/"`, `"/"`, true},
		{`0`, `-0`, true},
		{`1`, `"1"`, false},
		{`12345678901234567890123`, `12345678901234567890124`, false},
		{`"a"`, `"A"`, false},
		{"\"\xff\"", `"\ufffd"`, true}, // as json.Unmarshal reads invalid UTF-8
	} {
		if got := (msgID{raw: tc.a}.key() == msgID{raw: tc.b}.key()); got != tc.same {
			t.Errorf("ids %s and %s: same = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// gatedWriter holds each Write until released, and keeps what each Write
// held when it returned, as a pipe would have copied it.
type gatedWriter struct {
	started chan struct{}
	release chan struct{}
	mu      sync.Mutex
	lines   []string
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	w.started <- struct{}{}
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	return len(p), nil
}

// TestOutputWritesEachMessageOnce queues messages while a large one is
// being written, and more while those are: each must be written once, as
// it was sent (the buffers written and queued into must never be shared).
func TestOutputWritesEachMessageOnce(t *testing.T) {
	w := &gatedWriter{started: make(chan struct{}), release: make(chan struct{})}
	o := newOutput(w)
	sent := []string{"s1", strings.Repeat("b", 100<<10), "s2", "s3", "s4"}
	done := make(chan struct{})
	go func() {
		o.send(sent[0])
		o.send(sent[1])
		close(done)
	}()
	<-w.started // s1
	w.release <- struct{}{}
	<-w.started // the large one
	o.post(sent[2])
	w.release <- struct{}{}
	<-w.started // s2
	o.post(sent[3])
	w.release <- struct{}{}
	<-w.started // s3
	o.post(sent[4])
	w.release <- struct{}{}
	<-w.started // s4
	w.release <- struct{}{}
	<-done
	if err := o.close(nil); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range sent {
		want = append(want, `"`+s+`"`)
	}
	if !slices.Equal(w.lines, want) {
		t.Errorf("written %d lines, want %d; first difference:", len(w.lines), len(want))
		for i := range min(len(w.lines), len(want)) {
			if w.lines[i] != want[i] {
				t.Errorf("line %d: %.40s, want %.40s", i, w.lines[i], want[i])
				break
			}
		}
	}
}

// countingWriter counts the Writes made to it.
type countingWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

// TestPipelinedRepliesAreWrittenTogether sends many requests at once:
// while the reader has the next one in hand, a reply waits for the next
// reply, so they go out in one Write rather than one each.
func TestPipelinedRepliesAreWrittenTogether(t *testing.T) {
	var in strings.Builder
	in.WriteString(initLine + "\n")
	const n = 200
	for i := range n {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1)
	}
	var out countingWriter
	if err := newTestServer(t, nil).Serve(context.Background(), strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.buf.String(), "\n"); got != n+1 {
		t.Fatalf("%d replies, want %d", got, n+1)
	}
	if out.writes != 1 {
		t.Errorf("%d replies took %d Writes, want 1", n+1, out.writes)
	}
}

// TestOutputWaitsWhileTheReaderHasMore checks the output's side of
// TestPipelinedRepliesAreWrittenTogether: while the reader has another
// request in hand, messages wait, up to flushSize bytes; then, or when
// the output is closed, they are written together.
func TestOutputWaitsWhileTheReaderHasMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w countingWriter
		o := newOutput(&w)
		check := func(writes int, text string) {
			t.Helper()
			synctest.Wait()
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.writes != writes || w.buf.String() != text {
				t.Fatalf("%d Writes of %.40q, want %d of %.40q", w.writes, w.buf.String(), writes, text)
			}
		}
		o.hold(true)
		o.send("a")
		o.post("b")
		check(0, "")
		o.hold(false)
		check(1, "\"a\"\n\"b\"\n")
		o.hold(true)
		big := strings.Repeat("x", flushSize)
		o.send(big)
		check(2, "\"a\"\n\"b\"\n\""+big+"\"\n")
		o.send("c")
		check(2, "\"a\"\n\"b\"\n\""+big+"\"\n")
		if err := o.close(nil); err != nil {
			t.Fatal(err)
		}
		check(3, "\"a\"\n\"b\"\n\""+big+"\"\n\"c\"\n")
	})
}

func TestLineReaderMore(t *testing.T) {
	lr := newLineReader(strings.NewReader("a\n\nb\r\nc"), 100)
	for _, want := range []struct {
		line string
		more bool
	}{{"a", true}, {"b", false}, {"c", false}} {
		line, _, err := lr.next()
		if err != nil || string(line) != want.line || lr.more() != want.more {
			t.Fatalf("next = %q, %v; more = %v; want %q, more = %v", line, err, lr.more(), want.line, want.more)
		}
	}
}

// TestCallsOneAtATimeReuseGoroutines makes calls one at a time: each runs
// on the goroutine that read it while another reads on, and the two take
// turns instead of a new goroutine starting for every call.
func TestCallsOneAtATimeReuseGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newTestServer(t, nil)
		goroutines := map[string]bool{}
		if err := srv.AddTool(Tool{Name: "where"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
			buf := make([]byte, 64)
			id, _, _ := strings.Cut(string(buf[:runtime.Stack(buf, false)]), " [")
			goroutines[id] = true // one call at a time: no race
			return TextResult(id), nil
		}); err != nil {
			t.Fatal(err)
		}
		p := servePipes(context.Background(), srv)
		r := bufio.NewReader(p.outR)
		p.send(t, initLine)
		r.ReadString('\n')
		for i := range 20 {
			p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"where"}}`, i+1))
			if _, err := r.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		if len(goroutines) != 2 {
			t.Errorf("20 calls one at a time ran on %d goroutines, want 2", len(goroutines))
		}
		p.inW.Close()
		if err := <-p.served; err != nil {
			t.Fatal(err)
		}
	})
}

// TestReplyIsNotHeldForBlankLines sends a request and, in the same Write,
// what comes after it, then nothing more: its reply must be written,
// whatever follows it. Blank lines are skipped, so they are no request
// whose reply the output may wait for.
func TestReplyIsNotHeldForBlankLines(t *testing.T) {
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, after := range []string{"", "\n", "\r\n", " \t\n\n", "\xEF\xBB\xBF\n", "\xEF\xBB\xBF\xEF\xBB\xBF\n", "{\"jsonrpc\":", "\n{\"jsonrpc\":"} {
		t.Run(fmt.Sprintf("%q", after), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := servePipes(context.Background(), newTestServer(t, nil))
				lines := make(chan string, 2)
				go func() {
					r := bufio.NewReader(p.outR)
					for {
						l, err := r.ReadString('\n')
						if err != nil {
							close(lines)
							return
						}
						lines <- l
					}
				}()
				p.send(t, initLine)
				<-lines
				if _, err := io.WriteString(p.inW, ping+"\n"+after); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				select {
				case l := <-lines:
					if !strings.Contains(l, `"id":1,`) {
						t.Errorf("after %q: reply %s, want the ping's", after, l)
					}
				default:
					t.Errorf("ping followed by %q and nothing more: no reply", after)
				}
				p.inW.Close()
				<-p.served
			})
		})
	}
}

// TestOutputWritesWhatWasQueuedAfterALateHold closes the output while a
// message waits for the reader and a Write is under way, as a session
// stopped by its context does, and then the reader, still dispatching,
// says it has more: what was queued before close must still be written.
func TestOutputWritesWhatWasQueuedAfterALateHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &gatedWriter{started: make(chan struct{}), release: make(chan struct{})}
		o := newOutput(w)
		go o.send("a")
		<-w.started
		o.hold(true)
		o.post("b")
		closed := make(chan error)
		go func() { closed <- o.close(nil) }()
		synctest.Wait()
		o.hold(true)
		w.release <- struct{}{}
		select {
		case <-w.started:
			w.release <- struct{}{}
		case err := <-closed:
			t.Fatalf("close returned %v without writing what was queued", err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if want := []string{`"a"`, `"b"`}; !slices.Equal(w.lines, want) {
			t.Errorf("written %q, want %q", w.lines, want)
		}
	})
}

// TestNoReplyIsHeld sends random mixes of requests, notifications and
// blank lines, cut into random pieces. Once the server has done what it
// can with each piece, every request whose line has arrived must have
// exactly one reply, and no progress may follow its call's reply.
func TestNoReplyIsHeld(t *testing.T) {
	for seed := range 100 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0))
		version := []string{"2025-11-25", "2025-03-26"}[seed%2]
		var in strings.Builder
		in.WriteString(strings.Replace(initLine, "2025-11-25", version, 1) + "\n")
		for id := 1; id <= 40; id++ {
			switch rng.IntN(7) {
			case 0:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
			case 1:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, id)
			case 2:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":%d}}}`, id, rng.IntN(10))
			case 3:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":%d}}}`, id, id)
			case 4:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n \r\n\xEF\xBB\xBF", id+1)
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"boom"}}`, id)
			case 5:
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", id)
			case 6:
				if version == "2025-03-26" {
					fmt.Fprintf(&in, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}}]`, id)
				} else {
					fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"nope"}`, id)
				}
			}
			in.WriteString("\n")
		}
		synctest.Test(t, func(t *testing.T) {
			p := servePipes(context.Background(), newTestServer(t, &ServerOptions{MaxConcurrentCalls: 1 + seed%3}))
			var mu sync.Mutex
			replies := map[string]int{}
			go func() {
				r := bufio.NewReader(p.outR)
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					var m struct {
						ID     json.RawMessage
						Params struct{ ProgressToken json.RawMessage }
					}
					var batch []struct{ ID json.RawMessage }
					mu.Lock()
					if json.Unmarshal([]byte(l), &batch) == nil {
						for _, r := range batch {
							replies[string(r.ID)]++
						}
					} else if json.Unmarshal([]byte(l), &m) != nil || m.ID != nil {
						replies[string(m.ID)]++
					} else if replies[string(m.Params.ProgressToken)] > 0 {
						t.Errorf("seed %d: progress after the reply: %s", seed, l)
					}
					mu.Unlock()
				}
			}()
			s := in.String()
			for sent := 0; sent < len(s); {
				n := 1 + rng.IntN(min(len(s)-sent, 200))
				if _, err := io.WriteString(p.inW, s[sent:sent+n]); err != nil {
					t.Fatal(err)
				}
				sent += n
				synctest.Wait()
				time.Sleep(time.Second) // every sleep call, queued or not, has answered
				synctest.Wait()
				arrived := s[:strings.LastIndexByte(s[:sent], '\n')+1]
				mu.Lock()
				for id := 0; strings.Contains(arrived, fmt.Sprintf(`"id":%d,`, id)); id++ {
					if n := replies[fmt.Sprint(id)]; n != 1 {
						t.Fatalf("seed %d: %d of %d bytes sent, request %d has %d replies", seed, sent, len(s), id, n)
					}
				}
				mu.Unlock()
			}
			p.inW.Close()
			if err := <-p.served; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(replies) != 41 {
				t.Errorf("seed %d: replies to %d ids, want 41", seed, len(replies))
			}
		})
	}
}

// stallingReader returns its data in one Read, then errStalled: the
// input has no more for now.
type stallingReader struct{ data []byte }

var errStalled = errors.New("no input yet")

func (r *stallingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errStalled
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestLineReaderMoreMeansNoWait checks every input of up to four pieces
// that make lines blank or not: whenever more reports another line,
// next returns it without reading, since the output holds replies for it.
func TestLineReaderMoreMeansNoWait(t *testing.T) {
	pieces := []string{"\n", "\r\n", "\r", " ", "\xEF\xBB\xBF", "x"}
	var inputs []string
	var grow func(string, int)
	grow = func(s string, n int) {
		inputs = append(inputs, s)
		if n == 0 {
			return
		}
		for _, p := range pieces {
			grow(s+p, n-1)
		}
	}
	grow("", 4)
	for _, in := range inputs {
		lr := newLineReader(&stallingReader{[]byte("{}\n" + in)}, 1024)
		for {
			if _, _, err := lr.next(); err != nil {
				break
			}
			if lr.more() {
				if _, _, err := lr.next(); err != nil {
					t.Fatalf("%q: more reported a line, but next = %v", in, err)
				}
			}
		}
	}
}

// TestReaderStopsWhileCallsHoldTooMuch sends calls whose arguments
// together hold more than maxHeld, to a tool that blocks: the server must
// stop reading once they do, read nothing more while they run (not even
// a ping), and read and answer everything once they return.
func TestReaderStopsWhileCallsHoldTooMuch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 12
		size := maxHeld / 4
		srv := NewServer(Implementation{Name: "t", Version: "0"}, &ServerOptions{MaxConcurrentCalls: n})
		release := make(chan struct{})
		var started atomic.Int64
		if err := srv.AddTool(Tool{Name: "hold", InputSchema: ObjectSchema(map[string]any{"text": map[string]any{"type": "string"}})},
			func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
				started.Add(1)
				<-release
				return TextResult("held"), nil
			}); err != nil {
			t.Fatal(err)
		}
		p := servePipes(context.Background(), srv)
		r := bufio.NewReader(p.outR)
		p.send(t, initLine)
		r.ReadString('\n')
		text := strings.Repeat("x", size)
		args := len(`{"text":""}`) + size
		var sent atomic.Int64
		go func() {
			for i := range n {
				if _, err := fmt.Fprintf(p.inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"text":%q}}}`+"\n", i+1, text); err != nil {
					return
				}
				sent.Add(1)
			}
			io.WriteString(p.inW, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`+"\n")
			p.inW.Close()
		}()
		synctest.Wait() // the calls block, and so does the writer
		got := int(started.Load())
		if got*args <= maxHeld || (got-1)*args > maxHeld {
			t.Fatalf("%d calls of %d bytes of arguments were read before the server stopped reading, want the first that hold more than %d bytes", got, args, maxHeld)
		}
		if int(sent.Load()) != got {
			t.Fatalf("%d calls were read and %d started", sent.Load(), got)
		}
		close(release)
		ids := map[string]bool{}
		for range n + 1 {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("after %d replies: %v", len(ids), err)
			}
			var m struct{ ID json.RawMessage }
			json.Unmarshal([]byte(line), &m)
			ids[string(m.ID)] = true
		}
		if len(ids) != n+1 || !ids[`"ping"`] {
			t.Fatalf("replies to %d requests (%v), want %d and the ping", len(ids), ids, n)
		}
		if err := <-p.served; err != nil {
			t.Fatal(err)
		}
	})
}
