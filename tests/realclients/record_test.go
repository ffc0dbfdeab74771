package realclients

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// recordArg makes the test binary a recording relay instead of a test:
//
//	realclients.test -mcpship-record LOG COMMAND ARGS...
//
// runs COMMAND ARGS, passes standard input and output through, and appends
// every line to LOG, prefixed with "> " (client to server) or "< " (server
// to client). Registered in a client's configuration in place of mcpship,
// it shows what a client that cannot be asked (Claude Code, Gemini CLI,
// Codex) really sent and got.
const recordArg = "-mcpship-record"

func recordMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: realclients.test -mcpship-record LOG COMMAND [ARGS...]")
		return 2
	}
	logf, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 1
	}
	defer logf.Close()
	var mu sync.Mutex
	logLine := func(prefix string, line []byte) {
		mu.Lock()
		defer mu.Unlock()
		logf.Write([]byte(prefix))
		logf.Write(bytes.TrimRight(line, "\r\n"))
		logf.Write([]byte("\n"))
	}

	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 1
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			logLine("! ", []byte("signal "+s.String()))
			cmd.Process.Signal(s)
		}
	}()
	go func() {
		relay(os.Stdin, in, func(l []byte) { logLine("> ", l) })
		logLine("! ", []byte("client closed stdin"))
		in.Close()
	}()
	relay(out, os.Stdout, func(l []byte) { logLine("< ", l) })
	err = cmd.Wait()
	logLine("! ", []byte(fmt.Sprintf("server exited: %v", err)))
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// relay copies lines from r to w until r ends or w fails, calling seen for
// each.
func relay(r io.Reader, w io.Writer, seen func([]byte)) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			seen(line)
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// recordCommand returns the command and arguments that run mcpship with
// srvArgs through the recording relay, logging to logPath.
func recordCommand(logPath string, srvArgs []string) (string, []string) {
	return selfBin, append([]string{recordArg, logPath, binPath}, srvArgs...)
}

// A wireMsg is one JSON-RPC message seen by the relay.
type wireMsg struct {
	FromClient bool
	Raw        string
	ID         json.RawMessage `json:"id"`
	Method     string          `json:"method"`
	Params     struct {
		ProtocolVersion string `json:"protocolVersion"`
		Name            string `json:"name"`
		Meta            struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// transcript is what the relay logged.
type transcript []wireMsg

func readTranscript(t *testing.T, path string) transcript {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the client never started the server through the relay: %v", err)
	}
	var tr transcript
	for _, line := range strings.Split(string(b), "\n") {
		dir, body, ok := strings.Cut(line, " ")
		if !ok || (dir != ">" && dir != "<") {
			continue
		}
		m := wireMsg{FromClient: dir == ">", Raw: body}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Errorf("relay saw a line that is not JSON (%v): %s", err, body)
			continue
		}
		tr = append(tr, m)
	}
	return tr
}

// requests returns the client's requests (messages with a method and an id).
func (tr transcript) requests() []wireMsg {
	var out []wireMsg
	for _, m := range tr {
		if m.FromClient && m.Method != "" && len(m.ID) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// methods lists the methods the client sent, requests and notifications.
func (tr transcript) methods() []string {
	var out []string
	for _, m := range tr {
		if m.FromClient && m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// response returns the server's response to the request req.
func (tr transcript) response(req wireMsg) (wireMsg, bool) {
	for _, m := range tr {
		if !m.FromClient && m.Method == "" && bytes.Equal(m.ID, req.ID) {
			return m, true
		}
	}
	return wireMsg{}, false
}

// revisions returns the protocol revisions the client's requests named,
// in initialize params or in _meta, without repeats.
func (tr transcript) revisions() []string {
	var out []string
	for _, m := range tr.requests() {
		for _, v := range []string{m.Params.ProtocolVersion, m.Params.Meta.ProtocolVersion} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// String shows the transcript for a failure message.
func (tr transcript) String() string {
	var b strings.Builder
	for _, m := range tr {
		dir := "<"
		if m.FromClient {
			dir = ">"
		}
		fmt.Fprintf(&b, "%s %s\n", dir, m.Raw)
	}
	return b.String()
}
