package zonecheck

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// Bounds of the named-checkzone processes (docs/import.md). The CPU and
// memory bounds are set on each process with prlimit(2) as soon as it
// has started, before it is given its first byte of input (it reads
// nothing else), so they hold for all it does with the zone; no other
// program (prlimit(1)) is needed.
const (
	// MaxProcs bounds the named-checkzone processes running at once
	// over the Checkers that share one Procs (the host gives all of its
	// Checkers the process's): a check waits for a free one (as long as
	// its context allows).
	MaxProcs = 2
	// DefaultCPUSeconds bounds the CPU time of one named-checkzone
	// process (RLIMIT_CPU): past it the kernel stops it (SIGXCPU, then
	// SIGKILL a second later). A 200,000-record zone took 3.5 s here
	// (on a loaded machine), so a 1,000,000-record zone about 20 s.
	DefaultCPUSeconds = 120
	// DefaultMemoryBytes bounds the address space of one named-checkzone
	// process (RLIMIT_AS): an allocation past it fails and the program
	// stops. A 200,000-record zone took 72 MiB (resident) here, so a
	// 1,000,000-record zone about 400 MiB.
	DefaultMemoryBytes = 2 << 30
)

// Procs bounds the named-checkzone processes of the Checkers that share
// it to MaxProcs at once. A host that keeps Checkers in several places
// (zone_api: one per configuration generation and handler) gives them
// all one Procs, held for the process (a caddy.UsagePool in the host), so
// that the bound is the process's.
type Procs struct {
	slots chan struct{} // a token for each process running
}

// NewProcs returns a bound of MaxProcs processes at once.
func NewProcs() *Procs { return &Procs{slots: make(chan struct{}, MaxProcs)} }

// Destruct does nothing: a Procs holds no resource (caddy.Destructor,
// for the host's pool).
func (*Procs) Destruct() error { return nil }

// acquire waits for a free process slot; release gives it back.
func (p *Procs) acquire(ctx context.Context) (release func(), err error) {
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for one of the %d named-checkzone processes at once: %w", MaxProcs, ctx.Err())
	}
}

// bound sets the CPU time (seconds) and address space (bytes) bounds of
// the process pid.
func bound(pid int, cpuSeconds, memoryBytes uint64) error {
	if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpuSeconds, Max: cpuSeconds + 1}, nil); err != nil {
		return fmt.Errorf("bounding the CPU time of named-checkzone: %w", err)
	}
	if err := unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: memoryBytes, Max: memoryBytes}, nil); err != nil {
		return fmt.Errorf("bounding the memory of named-checkzone: %w", err)
	}
	return nil
}

// stopped returns the signal that ended the program, if one did.
func stopped(ee *exec.ExitError) (syscall.Signal, bool) {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}
