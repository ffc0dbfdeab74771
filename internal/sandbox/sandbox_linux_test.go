package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needLandlock(t *testing.T) {
	t.Helper()
	if v, why := Available(); v == 0 {
		t.Skip(why)
	}
}

// run runs sh -c script confined by p in dir and returns its combined
// output and error.
func run(t *testing.T, p *Policy, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	waited, err := Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), <-waited
}

func TestStartConfinesWrites(t *testing.T) {
	needLandlock(t)
	dir, tmp := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Writable: []string{tmp}}
	for _, script := range []string{
		"echo x > new",
		"echo y >> keep",
		"rm keep",
		"mv keep moved",
		"mkdir sub",
		"ln -s keep link",
		"sh -c 'echo x > child'",
		"mv keep " + tmp + "/stolen",
	} {
		if out, err := run(t, p, dir, script); err == nil {
			t.Errorf("%s: succeeded confined (%s)", script, out)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "keep" {
		t.Errorf("the folder holds %v after the confined runs, want only keep", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep")); string(b) != "x" {
		t.Errorf("keep holds %q, want x", b)
	}
	if out, err := run(t, p, tmp, "echo x > f && mkdir d && mv f d/g && rm -r d && cat "+filepath.Join(dir, "keep")+" > /dev/null && echo ok >/dev/null"); err != nil {
		t.Errorf("writing in the writable folder: %v: %s", err, out)
	}
	// mcpship's own threads stay unconfined.
	if err := os.WriteFile(filepath.Join(dir, "after"), nil, 0o644); err != nil {
		t.Errorf("mcpship cannot write after confining a child: %v", err)
	}
}

func TestStartConfinesTCP(t *testing.T) {
	needLandlock(t)
	if v, _ := Available(); v < 4 {
		t.Skip("Landlock ABI 4 confines TCP; this kernel has", v)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	script := "exec 3<>/dev/tcp/127.0.0.1/" + port
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash opens the connection")
	}
	connect := func(p *Policy) error {
		cmd := exec.Command("bash", "-c", script)
		waited, err := Start(cmd, p)
		if err != nil {
			t.Fatal(err)
		}
		return <-waited
	}
	if err := connect(&Policy{}); err == nil {
		t.Error("a confined program connected to a loopback port")
	}
	if err := connect(&Policy{Network: true}); err != nil {
		t.Errorf("a program allowed the network could not connect: %v", err)
	}
	if err := connect(nil); err != nil {
		t.Errorf("an unconfined program could not connect: %v", err)
	}
}
