package zonecheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// wrapper writes a script that runs named-checkzone after body (a shell
// snippet that has read standard input into $in), for checks of what
// the process is given.
func wrapper(t *testing.T, body string) *Checker {
	t.Helper()
	prog := (&Checker{}).Program()
	if prog == "" {
		t.Fatal("named-checkzone is not installed (bind9-utils)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "checkzone")
	text := "#!/bin/sh\nin=" + dir + "/in.$$\ncat > $in\n" + body + "\nexec " + prog + " \"$@\" < $in\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Checker{Path: script}
}

// bigZone is a zone of n A records.
func bigZone(n int) []byte {
	var b strings.Builder
	b.WriteString("$ORIGIN big.test.\nbig.test. 300 IN SOA ns.big.test. h.big.test. 1 2 3 4 5\nbig.test. 300 IN NS ns.big.test.\nns 300 IN A 192.0.2.1\n")
	for i := range n {
		fmt.Fprintf(&b, "h%d 300 IN A 10.%d.%d.%d\n", i, i>>16&255, i>>8&255, i&255)
	}
	return []byte(b.String())
}

// TestCheckBounds: each named-checkzone process has its CPU time and
// address space bounded before it reads its input (as the process
// itself reads them in /proc once it has its input).
func TestCheckBounds(t *testing.T) {
	limits := filepath.Join(t.TempDir(), "limits")
	c := wrapper(t, "cat /proc/$$/limits > "+limits)
	c.CPUSeconds, c.MemoryBytes = 77, 1<<30
	if _, err := c.Check(context.Background(), "big.test", bigZone(10), 100); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(limits)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{{"Max", "cpu", "time", "77", "78", "seconds"}, {"Max", "address", "space", "1073741824", "1073741824", "bytes"}} {
		if !strings.Contains(string(data), strings.Join(want, " ")) && !containsFields(string(data), want) {
			t.Errorf("limits of the process:\n%s\nwant %v", data, want)
		}
	}
}

// containsFields reports whether a line of text has the fields want.
func containsFields(text string, want []string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}

// TestCheckMemoryBound: a zone that needs more memory than the bound
// stops named-checkzone, and the check is a *zonemodel.LimitError (413),
// not a refusal of the file.
func TestCheckMemoryBound(t *testing.T) {
	c := &Checker{MemoryBytes: 100 << 20}
	if !c.Available() {
		t.Fatal("named-checkzone is not installed (bind9-utils)")
	}
	_, err := c.Check(context.Background(), "big.test", bigZone(400_000), 1_000_000)
	var le *zonemodel.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "bounds") {
		t.Fatalf("err = %v, want a *zonemodel.LimitError of the bounds", err)
	}
}

// TestCheckProcsAtOnce: of 6 checks started at once, at most MaxProcs
// named-checkzone processes run at a time (each logs its start and end).
func TestCheckProcsAtOnce(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	c := wrapper(t, "echo s >> "+log+"\nsleep 0.3\necho e >> "+log)
	if most := mostAtOnce(t, log, c, c, c, c, c, c); most != MaxProcs {
		t.Fatalf("at most %d ran at once, want %d", most, MaxProcs)
	}
}

// TestCheckProcsShared: Checkers given one Procs (a host's Checkers of
// two configuration generations) run at most MaxProcs processes at once
// between them.
func TestCheckProcsShared(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	a := wrapper(t, "echo s >> "+log+"\nsleep 0.3\necho e >> "+log)
	b := &Checker{Path: a.Path}
	shared := NewProcs()
	a.Procs, b.Procs = shared, shared
	if most := mostAtOnce(t, log, a, b, a, b, a, b); most != MaxProcs {
		t.Fatalf("sharing a Procs: at most %d ran at once, want %d", most, MaxProcs)
	}
}

// mostAtOnce runs one check with each of cs at once, with the wrapper's
// script that logs each process's start and end to log, and returns the
// most processes that ran at a time.
func mostAtOnce(t *testing.T, log string, cs ...*Checker) int {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			if _, err := c.Check(context.Background(), "big.test", bigZone(1), 100); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	running, most := 0, 0
	for _, l := range strings.Fields(string(data)) {
		if l == "s" {
			running++
		} else {
			running--
		}
		most = max(most, running)
	}
	t.Logf("starts and ends: %s", strings.Join(strings.Fields(string(data)), " "))
	return most
}
