package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

// server is one program under test.
type server struct {
	Name string   `json:"name"`
	Path string   `json:"path"`
	Args []string `json:"args,omitempty"`
	// Tool is the tool the call phases call; Echo, that it takes {text}
	// and answers with that text, which the driver then checks exactly.
	Tool string `json:"tool"`
	Echo bool   `json:"echo"`
	// Big lists the large-message sizes, in MiB, to send to this server.
	Big []int `json:"big,omitempty"`
}

// proc is a running server with pipes to its stdin and stdout.
type proc struct {
	srv    *server
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	done   chan struct{} // closed when the process has been waited for
	state  *os.ProcessState
	werr   error

	waitOnce sync.Once
}

func start(s *server) (*proc, error) {
	cmd := exec.Command(s.Path, s.Args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{srv: s, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &tailBuffer{max: 2048}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// exited waits for the process in the background, once. Call it only when
// done reading stdout: Wait closes the pipe.
func (p *proc) exited() <-chan struct{} {
	p.waitOnce.Do(func() {
		go func() {
			p.werr = p.cmd.Wait()
			p.state = p.cmd.ProcessState
			close(p.done)
		}()
	})
	return p.done
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) send(line []byte) error {
	_, err := p.in.Write(line)
	return err
}

// recv returns the next line, without a copy when it fits the buffer: the
// slice is valid until the next recv.
func (p *proc) recv() ([]byte, error) {
	line, err := p.out.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	buf := append([]byte(nil), line...)
	for {
		line, err = p.out.ReadSlice('\n')
		buf = append(buf, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// recvTimeout is recv bounded by d; on timeout the process is killed.
func (p *proc) recvTimeout(d time.Duration) ([]byte, error) {
	t := time.AfterFunc(d, func() { p.cmd.Process.Kill() })
	line, err := p.recv()
	if !t.Stop() {
		return nil, fmt.Errorf("no reply within %v (killed)", d)
	}
	return line, err
}

// close ends stdin and waits up to d for the process to exit, killing it
// after that. It returns how the process ended.
func (p *proc) close(d time.Duration) string {
	p.in.Close()
	go io.Copy(io.Discard, p.out)
	select {
	case <-p.exited():
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.exited()
		return "killed after " + d.String()
	}
	return exitString(p.state, p.werr)
}

func exitString(st *os.ProcessState, err error) string {
	if st != nil {
		return st.String()
	}
	return "wait: " + err.Error()
}

// handshake sends initialize, reads its reply, sends initialized.
func (p *proc) handshake() error {
	if err := p.send(initLine); err != nil {
		return err
	}
	line, err := p.recvTimeout(10 * time.Second)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if err := checkResult(line, "0"); err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	return p.send(initializedLine)
}

var (
	initLine        = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-driver","version":"1.0.0"}}}` + "\n")
	initializedLine = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	listLine        = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
)

// callLine appends a tools/call of s's tool with id; echo servers get
// {"text":"t<id>"}.
func callLine(b []byte, s *server, id int) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"tools/call","params":{"name":"`...)
	b = append(b, s.Tool...)
	if s.Echo {
		b = append(b, `","arguments":{"text":"t`...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, `"}}}`+"\n"...)
	} else {
		b = append(b, `","arguments":{}}}`+"\n"...)
	}
	return b
}

// reply is what the driver reads from any response.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool            `json:"isError"`
		Tools   json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseReply(line []byte) (*reply, error) {
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("not JSON: %v: %.200q", err, line)
	}
	if r.JSONRPC != "2.0" {
		return nil, fmt.Errorf("jsonrpc is not 2.0: %.200q", line)
	}
	return &r, nil
}

// checkResult checks that line is a result (not an error) for id.
func checkResult(line []byte, id string) error {
	r, err := parseReply(line)
	if err != nil {
		return err
	}
	if string(r.ID) != id {
		return fmt.Errorf("reply id %s, want %s", r.ID, id)
	}
	if r.Error != nil || r.Result == nil {
		return fmt.Errorf("not a result: %.300q", line)
	}
	return nil
}

// checkCall checks a tools/call reply: the id is a known request's, and
// its content is exactly the echoed text (or, for other tools, a text
// result that is not an error). It returns the id.
func checkCall(s *server, line []byte) (int, error) {
	r, err := parseReply(line)
	if err != nil {
		return 0, err
	}
	id, err := strconv.Atoi(string(r.ID))
	if err != nil {
		return 0, fmt.Errorf("id %s is not an integer", r.ID)
	}
	if r.Error != nil || r.Result == nil || r.Result.IsError || len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" {
		return id, fmt.Errorf("not a one-text result: %.300q", line)
	}
	if s.Echo {
		if want := "t" + strconv.Itoa(id); r.Result.Content[0].Text != want {
			return id, fmt.Errorf("echo %q, want %q", r.Result.Content[0].Text, want)
		}
	} else if r.Result.Content[0].Text == "" {
		return id, errors.New("empty text")
	}
	return id, nil
}

// procStat returns the user+system CPU time of pid.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	// After the command: state(0) ... utime(11) stime(12), in clock ticks.
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTicks
}

const clockTicks = 100 // USER_HZ on Linux

// syscw returns how many write system calls pid has made.
func syscw(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "syscw:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return -1
}

// vmHWM returns the peak resident set size of pid, in bytes.
func vmHWM(pid int) int64 { return load.StatusBytes(pid, "VmHWM:")[0] }

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
