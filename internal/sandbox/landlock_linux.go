package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeFS are the write-side file-system rights of each Landlock ABI,
// by the version that added them: the ruleset handles all those of the
// kernel's ABI, so that none is allowed outside Policy.Writable.
var writeFS = [...]uint64{
	1: unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM,
	2: unix.LANDLOCK_ACCESS_FS_REFER,
	3: unix.LANDLOCK_ACCESS_FS_TRUNCATE,
	5: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV,
}

// fileRights are the rights that apply to a file rather than a folder,
// those a rule on a device file may grant.
const fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// devices are the character devices a read-only program may write:
// they discard or make bytes, or are the terminal it was started from.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// abi is the Landlock ABI version of the running kernel, 0 without
// Landlock, and why.
var abi = sync.OnceValues(func() (int, string) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, "this kernel (" + release() + ") has no Landlock (Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)"
	case errno == unix.EOPNOTSUPP:
		return 0, "Landlock is built into this kernel (" + release() + ") but not enabled: add landlock to its lsm= boot parameter"
	case errno != 0:
		return 0, fmt.Sprintf("Landlock's version query failed: %v", errno)
	}
	return int(v), ""
})

func release() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "Linux"
	}
	return "Linux " + unix.ByteSliceToString(u.Release[:])
}

// handled returns the ruleset's handled rights at ABI v for p.
func handled(v int, p *Policy) unix.LandlockRulesetAttr {
	var attr unix.LandlockRulesetAttr
	for i := 1; i <= v && i < len(writeFS); i++ {
		attr.Access_fs |= writeFS[i]
	}
	if v >= 4 && !p.Network {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if v >= 6 {
		// Abstract unix sockets and signals reach processes outside the
		// sandbox (a session bus, an agent) that could write for it.
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	return attr
}

// Do calls f on an OS thread of its own confined by p, and ends that
// thread when f returns: processes f starts are confined, mcpship's
// other threads are not. With p nil, f runs unconfined, on the caller's
// thread. Do returns f's error, or why the confinement failed (f is
// then not called).
func Do(p *Policy, f func() error) error {
	if p == nil {
		return f()
	}
	v, why := abi()
	if v == 0 {
		return fmt.Errorf("cannot confine: %s", why)
	}
	attr := handled(v, p)
	done := make(chan error, 1)
	go func() {
		// The goroutine ends locked: the runtime then ends the thread,
		// whose restrictions no other goroutine may inherit.
		runtime.LockOSThread()
		if err := restrict(&attr, p); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

// restrict enforces a ruleset on the calling thread: attr's rights
// denied but in p.Writable and on the devices.
func restrict(attr *unix.LandlockRulesetAttr, p *Policy) error {
	// A kernel before ABI 6 takes the longer struct, its fields unknown
	// to it being zero.
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(attr)), unsafe.Sizeof(*attr), 0)
	if errno != 0 {
		return fmt.Errorf("cannot confine: landlock_create_ruleset: %v", errno)
	}
	defer unix.Close(int(fd))
	for _, dir := range p.Writable {
		if err := allow(int(fd), dir, attr.Access_fs, true); err != nil {
			return err
		}
	}
	for _, dev := range devices {
		_ = allow(int(fd), dev, attr.Access_fs&fileRights, false)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot confine: prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("cannot confine: landlock_restrict_self: %v", errno)
	}
	return nil
}

// allow adds a rule granting rights beneath path. A missing path is an
// error only when it must exist.
func allow(ruleset int, path string, rights uint64, must bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if !must {
			return nil
		}
		return fmt.Errorf("cannot confine: %v", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer unix.Close(fd)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 && must {
		return fmt.Errorf("cannot confine: a rule for %s: %v", path, errno)
	}
	return nil
}

// Available returns the Landlock ABI version programs are confined with,
// 0 when they cannot be, and why not.
func Available() (int, string) { return abi() }

// Confines reports whether Do and Start confine programs here.
func Confines() bool { v, _ := abi(); return v > 0 }

func writeAccess(p string) bool { return unix.Access(p, unix.W_OK) == nil }
