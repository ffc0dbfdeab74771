package realclients

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tracing is bearer with a record of the connection each request went
// out on, which a failed request's error names.
type tracing struct {
	token string
	tr    http.RoundTripper
}

func (b tracing) RoundTrip(r *http.Request) (*http.Response, error) {
	var info httptrace.GotConnInfo
	var got bool
	var wrote error
	var wroteAt time.Time
	trace := &httptrace.ClientTrace{
		GotConn:      func(i httptrace.GotConnInfo) { info, got = i, true },
		WroteRequest: func(w httptrace.WroteRequestInfo) { wrote, wroteAt = w.Err, time.Now() },
	}
	r = r.Clone(httptrace.WithClientTrace(r.Context(), trace))
	r.Header.Set("Authorization", "Bearer "+b.token)
	start := time.Now()
	resp, err := b.tr.RoundTrip(r)
	if err != nil {
		var conn string
		if got {
			conn = fmt.Sprintf("conn %s reused %v idle %v (%v)", info.Conn.LocalAddr(), info.Reused, info.WasIdle, info.IdleTime)
		}
		return nil, fmt.Errorf("%s %s at %s: %w [%s; wrote %v at %s]", r.Method, r.URL, start.Format("15:04:05.000"), err,
			conn, wrote, wroteAt.Format("15:04:05.000"))
	}
	return resp, nil
}

// testRollingRestart restarts each replica in turn, several rounds,
// while modern and legacy clients call without pause: SIGTERM, wait for
// the replica to exit, start it again at its address, wait until the
// load balancer sends it calls, then the next one. No call may fail, and
// the calls must reach every generation of every replica.
func testRollingRestart(t *testing.T) {
	t.Parallel()
	const rounds = 3
	d := startDeployment(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var (
		mu       sync.Mutex
		served   = map[string]int{} // calls per replica generation
		failures []string
		calls    int
		wg       sync.WaitGroup
		stop     = make(chan struct{})
	)
	clients := []string{rev20260728, rev20251125, rev20260728, rev20251125}
	for w, rev := range clients {
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-rolling", Version: "0"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: d.url,
			HTTPClient: &http.Client{Transport: tracing{d.token, http.DefaultTransport.(*http.Transport).Clone()}}}
		cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
		if err != nil {
			t.Fatalf("connecting through haproxy at %s: %v", rev, err)
		}
		t.Cleanup(func() { cs.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, failed := 0, 0; failed < 5; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := "replica"
				if (i+w)%4 == 3 {
					tool = "slow"
				}
				start := time.Now()
				name, err := callReplica(ctx, cs, tool)
				mu.Lock()
				calls++
				if err != nil {
					failed++
					failures = append(failures, fmt.Sprintf("%s (%s, client %d), started %s, failed at %s: %v",
						tool, rev, w, start.Format("15:04:05.000"), time.Now().Format("15:04:05.000"), err))
				} else {
					failed = 0
					served[name]++
				}
				mu.Unlock()
			}
		}()
	}
	servedBy := func(label string) int {
		mu.Lock()
		defer mu.Unlock()
		return served[label]
	}

	for round := 1; round <= rounds; round++ {
		for i, r := range d.replicas {
			r.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-r.exited:
			case <-time.After(time.Minute):
				t.Fatalf("round %d: replica %s did not exit within a minute of SIGTERM", round, r.name)
			}
			if !strings.Contains(r.stderr.String(), "draining") {
				t.Errorf("round %d: replica %s did not say it drained:\n%s", round, r.name, r.stderr.String())
			}
			label := fmt.Sprintf("%s/%d", r.name, round)
			d.replicas[i] = startReplicaAs(t, r.name, label, d.dir, r.addr)
			t.Logf("round %d: %s restarted at %s", round, label, time.Now().Format("15:04:05.000"))
			// Taken back: haproxy sends it calls again (two passed checks).
			testutil.WaitFor(t, time.Minute, fmt.Sprintf("round %d: a call to reach %s", round, label), func() bool { return servedBy(label) > 0 })
		}
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d calls, %d failed; per replica generation %v", calls, len(failures), served)
	for _, f := range failures {
		t.Error(f)
	}
	for _, r := range d.replicas {
		for round := 0; round <= rounds; round++ {
			label := r.name
			if round > 0 {
				label = fmt.Sprintf("%s/%d", r.name, round)
			}
			if served[label] == 0 {
				t.Errorf("no call reached %s", label)
			}
		}
	}
}
