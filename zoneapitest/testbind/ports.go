package testbind

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// Ports of the servers tests start are reserved across processes. named
// and caddy both listen with SO_REUSEPORT, so a port that two test
// processes pick is bound by both without an error, and the kernel then
// splits the connections between them: a test talks, now and then, to
// another test's named or caddy (seen as a DELETE answered 200 by another
// run's caddy while this test's named was stopped). A port picked with :0
// is free only until the probe closes it, so two processes can pick the
// same one before either server binds it. A reservation is an exclusive
// flock on <tmp>/zoneapi-test-ports/<port>, held until the server's test
// ends (or the process exits); a port reserved elsewhere is not used.

// reservations holds this process's reservations, by port.
var reservations = struct {
	sync.Mutex
	files map[int]*os.File
}{files: map[int]*os.File{}}

// reserve takes port's reservation; false when another process (or
// this one) holds it. A reservation that cannot be recorded at all (no
// temporary directory) is not refused: the port is then only as free as
// the kernel said.
func reserve(port int) bool {
	dir := filepath.Join(os.TempDir(), "zoneapi-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return false
	}
	reservations.Lock()
	defer reservations.Unlock()
	if old := reservations.files[port]; old != nil {
		_ = old.Close()
	}
	reservations.files[port] = f
	return true
}

// release drops port's reservation.
func release(port int) {
	reservations.Lock()
	defer reservations.Unlock()
	if f := reservations.files[port]; f != nil {
		_ = f.Close()
		delete(reservations.files, port)
	}
}

// ReservedPort returns a free loopback TCP port, reserved for this
// process until tb ends (its cleanups run in reverse order, so register
// the server's stop after calling it).
func ReservedPort(tb testing.TB) int {
	tb.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		ok := reserve(port)
		_ = l.Close()
		if ok {
			tb.Cleanup(func() { release(port) })
			return port
		}
	}
	tb.Fatal("testbind: no free loopback port that no other test process reserved")
	return 0
}
