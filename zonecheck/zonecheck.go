// Package zonecheck checks a zone's master file as named would load it,
// by running BIND's own checker, named-checkzone, with the options that
// match named's defaults for a primary zone, and returns the zone as
// named-checkzone writes it (absolute names, one record per line), with
// its record count and serial. A refused file is a *zonemodel.FileError
// carrying the line named-checkzone names.
//
// The file goes to named-checkzone on its standard input and the zone
// comes back on its standard output: nothing is written to disk.
// named-checkzone obeys every directive of the file it reads ($INCLUDE
// of any file it can open, quoted or not), so it must only ever read
// text the caller rendered itself from parsed records
// (zonemodel.RenderRecords), never text a client wrote.
package zonecheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Checker runs named-checkzone. The zero value looks the program up in
// PATH, then in /usr/sbin and /usr/bin.
type Checker struct {
	// Path is the named-checkzone program; "" finds it.
	Path string
	// Timeout bounds one check (default 5 minutes).
	Timeout time.Duration
	// CPUSeconds and MemoryBytes bound each named-checkzone process's CPU
	// time and address space (default DefaultCPUSeconds and
	// DefaultMemoryBytes; see bounds.go).
	CPUSeconds, MemoryBytes uint64
	// Procs bounds the processes running at once, shared with other
	// Checkers (nil: a bound of the Checker's own, made at first use).
	Procs *Procs

	once  sync.Once
	found string

	procsOnce sync.Once
	ownProcs  *Procs
}

// procs returns the Checker's bound of processes at once: Procs, else
// its own.
func (c *Checker) procs() *Procs {
	if c.Procs != nil {
		return c.Procs
	}
	c.procsOnce.Do(func() { c.ownProcs = NewProcs() })
	return c.ownProcs
}

// Args are named-checkzone's options that match named's defaults for a
// primary zone (BIND 9.18 ARM, "zone" options): check-names fail;
// check-integrity yes with check-sibling (-i local: in-zone MX, SRV and
// NS targets and glue, without looking names up in the DNS);
// check-dup-records, check-mx, check-mx-cname, check-srv-cname,
// check-spf and check-wildcard warn. -D -o - writes the loaded zone to
// standard output in full form (absolute names, explicit TTLs).
var Args = []string{"-i", "local", "-k", "fail", "-r", "warn", "-m", "warn", "-M", "warn", "-S", "warn", "-T", "warn", "-W", "warn", "-D", "-s", "full", "-o", "-"}

// Result is a zone named-checkzone loaded.
type Result struct {
	// Text is the zone as named-checkzone wrote it: one record per line.
	Text []byte
	// Records is the number of records.
	Records int
	// Serial is the SOA serial named-checkzone reported.
	Serial uint32
	// Warnings are named-checkzone's warnings, as it wrote them.
	Warnings []string
}

// Program returns the named-checkzone program the checker runs, or ""
// when none is installed.
func (c *Checker) Program() string {
	c.once.Do(func() {
		if c.Path != "" {
			c.found = c.Path
			return
		}
		if p, err := exec.LookPath("named-checkzone"); err == nil {
			c.found = p
			return
		}
		for _, p := range []string{"/usr/sbin/named-checkzone", "/usr/bin/named-checkzone", "/usr/local/sbin/named-checkzone"} {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				c.found = p
				return
			}
		}
	})
	return c.found
}

// Available reports whether named-checkzone is installed.
func (c *Checker) Available() bool { return c != nil && c.Program() != "" }

// Check runs named-checkzone on the master file text of the zone, which
// the caller rendered (never a client's text: see the package comment),
// once one of the MaxProcs processes is free, with its CPU time and
// memory bounded. A file named would refuse is a *zonemodel.FileError
// (with the line named-checkzone names); more than maxRecords records,
// or a program stopped by its bounds, is a *zonemodel.LimitError; any
// other error is the checker's own failure.
func (c *Checker) Check(ctx context.Context, zone string, text []byte, maxRecords int) (*Result, error) {
	return c.CheckReader(ctx, zone, bytes.NewReader(text), maxRecords)
}

// CheckReader is Check of the text r reads, given to named-checkzone as
// it is read (a caller that renders a zone into a pipe has it checked
// while it renders). The check fails if reading r fails.
func (c *Checker) CheckReader(ctx context.Context, zone string, r io.Reader, maxRecords int) (*Result, error) {
	prog := c.Program()
	if prog == "" {
		return nil, errors.New("named-checkzone is not installed")
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	release, err := c.procs().acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	cpu, mem := c.CPUSeconds, c.MemoryBytes
	if cpu == 0 {
		cpu = DefaultCPUSeconds
	}
	if mem == 0 {
		mem = DefaultMemoryBytes
	}
	args := append(append([]string{}, Args...), zone, "/dev/stdin")
	cmd := exec.CommandContext(ctx, prog, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out := &lineCounter{max: maxRecords}
	stderr := &capped{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running %s: %w", prog, err)
	}
	// The bounds hold before the program reads its first byte.
	if err := bound(cmd.Process.Pid, cpu, mem); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdin, r)
		stdin.Close()
		copied <- err
	}()
	runErr := cmd.Wait()
	if err := <-copied; err != nil && runErr == nil {
		// The program saw the end of a text cut short.
		return nil, fmt.Errorf("reading the zone for named-checkzone: %w", err)
	}
	if out.over {
		return nil, &zonemodel.LimitError{Message: fmt.Sprintf("the zone has more than %d records", maxRecords)}
	}
	msgs := strings.Split(strings.TrimSpace(stderr.buf.String()), "\n")
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("named-checkzone did not finish in %s: %w", timeout, ctx.Err())
		}
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return nil, fmt.Errorf("running %s: %w", prog, runErr)
		}
		if sig, ok := stopped(ee); ok || strings.Contains(stderr.buf.String(), "out of memory") {
			return nil, &zonemodel.LimitError{Message: fmt.Sprintf("named-checkzone stopped (%v) past its bounds of %d s of CPU time and %d MiB of memory: the zone is too large to check", sig, cpu, mem>>20)}
		}
		return nil, Refusal(zone, msgs)
	}
	res := &Result{Text: out.buf.Bytes(), Records: out.lines}
	for _, m := range msgs {
		if s, ok := strings.CutPrefix(m, "zone "+zone+"/IN: loaded serial "); ok {
			n, _ := strconv.ParseUint(strings.Fields(s + " ")[0], 10, 32)
			res.Serial = uint32(n)
		} else if m != "OK" && m != "" {
			res.Warnings = append(res.Warnings, m)
		}
	}
	if n := len(res.Warnings); n > MaxWarnings {
		res.Warnings = append(res.Warnings[:MaxWarnings], fmt.Sprintf("… and %d more warnings", n-MaxWarnings))
	}
	return res, nil
}

// MaxWarnings bounds the warnings a Result carries; the rest are counted.
const MaxWarnings = 100

// capped keeps the first max bytes written to it and drops the rest
// (named-checkzone's messages: one a line, a warning per record at most).
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// lineAt is a message of named-checkzone about one line:
// "/dev/stdin:7: unknown RR type 'FOO'", or
// "dns_master_load: /dev/stdin:7: www.example.com: CNAME and other data".
var lineAt = regexp.MustCompile(`(?:^|: )/dev/stdin:(\d+): (.*)$`)

// MessageLine splits a message of named-checkzone about one line of its
// input ("/dev/stdin:5: ignoring out-of-zone data (other.net)") into the
// line and what it says; ok is false for other messages.
func MessageLine(msg string) (line int, text string, ok bool) {
	sm := lineAt.FindStringSubmatch(msg)
	if sm == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(sm[1])
	return n, sm[2], err == nil && n > 0
}

// Refusal reads named-checkzone's messages about a file it refused and
// returns the problem as a *zonemodel.FileError: the first message that
// names a line and gives the reason of "loading from master file …
// failed: reason" (not a warning before it, such as "no TTL specified"),
// else the first message that names a line, else that reason, else
// every message.
func Refusal(zone string, msgs []string) *zonemodel.FileError {
	var reason string
	for _, m := range msgs {
		if _, r, ok := strings.Cut(m, "loading from master file /dev/stdin failed: "); ok {
			reason = r
			break
		}
	}
	var first *zonemodel.FileError
	for _, m := range msgs {
		if sm := lineAt.FindStringSubmatch(m); sm != nil {
			n, err := strconv.Atoi(sm[1])
			if err != nil || n <= 0 {
				continue
			}
			fe := &zonemodel.FileError{Line: n, Message: sm[2]}
			if reason != "" && strings.HasSuffix(sm[2], reason) {
				return fe
			}
			if first == nil {
				first = fe
			}
		}
	}
	if first != nil {
		return first
	}
	if reason != "" {
		return &zonemodel.FileError{Message: reason}
	}
	var other []string
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "zone "+zone+"/IN: ")
		if m != "" && m != "not loaded due to errors." {
			other = append(other, m)
		}
	}
	if len(other) == 0 {
		return &zonemodel.FileError{Message: "named-checkzone refused the zone"}
	}
	return &zonemodel.FileError{Message: strings.Join(other, "; ")}
}

// lineCounter keeps named-checkzone's output and counts its lines (one a
// record); past max lines it fails the write, which ends the program.
type lineCounter struct {
	buf   bytes.Buffer
	lines int
	max   int
	over  bool
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.lines += bytes.Count(p, []byte{'\n'})
	if l.max > 0 && l.lines > l.max {
		l.over = true
		return 0, errors.New("too many records")
	}
	return l.buf.Write(p)
}
