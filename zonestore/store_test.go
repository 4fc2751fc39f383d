package zonestore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestOpen(t *testing.T) {
	s, dir := openTemp(t)
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".zoneapi")); err != nil || !fi.IsDir() {
		t.Errorf("lock dir missing: %v", err)
	}
	if got := s.FilePath("example.com"); got != filepath.Join(dir, "example.com.zone") {
		t.Errorf("FilePath = %q", got)
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("Open of a missing dir succeeded")
	}
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f); err == nil {
		t.Error("Open of a file succeeded")
	}
}

func TestCreateFileExclusive(t *testing.T) {
	s, dir := openTemp(t)
	path, err := s.CreateFile("example.com", []byte("one\n"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stat %s: %v %v", path, fi.Mode(), err)
	}
	_, err = s.CreateFile("example.com", []byte("two\n"))
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second CreateFile: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("file was overwritten: %q", b)
	}
	if _, err := s.CreateFile("../evil", nil); err == nil {
		t.Error("CreateFile accepted ../evil")
	}
	if _, err := s.CreateFile("Example.com", nil); err == nil {
		t.Error("CreateFile accepted a non-canonical name")
	}

	// Racing creators: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateFile("race.example", fmt.Appendf(nil, "%d\n", i))
			if err == nil {
				wins.Add(1)
			} else if !errors.Is(err, ErrExists) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d creators won", wins.Load())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestRemoveZoneFiles(t *testing.T) {
	s, dir := openTemp(t)
	mine := []string{
		"example.com.zone", "example.com.zone.jnl", "example.com.zone.jbk", "example.com.zone.signed",
		"example.com.zone.signed.jnl", "Kexample.com.+013+12345.key", "Kexample.com.+013+12345.private",
		"Kexample.com.+013+12345.state", "Kexample.com.+008+00001.key", "example.com.pdns.json",
	}
	others := []string{
		"sub.example.com.zone", "Ksub.example.com.+013+12345.key", "example.com.zone.bak",
		"Kexample.com.+013+1234.key", "Kexample.com.+013+12345.key.old", "xexample.com.zone",
		"sub.example.com.pdns.json", "example.com.pdns.json.bak",
	}
	for _, n := range append(slices.Clone(mine), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := s.RemoveZoneFiles("example.com")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range removed {
		got = append(got, filepath.Base(p))
	}
	slices.Sort(got)
	want := slices.Clone(mine)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v\nwant    %v", got, want)
	}
	for _, n := range others {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed", n)
		}
	}
	removed, err = s.RemoveZoneFiles("example.com")
	if err != nil || len(removed) != 0 {
		t.Errorf("second remove: %v %v", removed, err)
	}
	if _, err := s.RemoveZoneFiles("*"); err == nil {
		t.Error("RemoveZoneFiles accepted *")
	}
}

func TestLockAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	ctx := context.Background()

	unlock, err := a.Lock(ctx, "example.com")
	if err != nil {
		t.Fatal(err)
	}
	// Another zone is independent.
	u2, err := b.Lock(ctx, "example.org")
	if err != nil {
		t.Fatal(err)
	}
	u2()

	// The same zone waits, and honours ctx.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(short, "example.com"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock while held: %v, want deadline exceeded", err)
	}
	got := make(chan struct{})
	go func() {
		u, err := b.Lock(ctx, "example.com")
		if err != nil {
			t.Error(err)
			return
		}
		close(got)
		u()
	}()
	select {
	case <-got:
		t.Fatal("second Lock succeeded while the first was held")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	unlock() // idempotent
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("second Lock never succeeded")
	}
	if _, err := a.Lock(ctx, "../x"); err == nil {
		t.Error("Lock accepted ../x")
	}
}

func TestLockMutualExclusion(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{}
	for range 3 {
		s, _ := Open(dir)
		stores = append(stores, s)
	}
	var inside, max atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := stores[i%3].Lock(context.Background(), "z.example")
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			if n > max.Load() {
				max.Store(n)
			}
			time.Sleep(time.Millisecond)
			inside.Add(-1)
			u()
		}()
	}
	wg.Wait()
	if max.Load() != 1 {
		t.Errorf("%d holders at once", max.Load())
	}
}

// TestLockHelperProcess is not a test: TestLockAcrossProcesses runs the test
// binary with ZONESTORE_LOCK_HELPER set, and it holds a zone lock until its
// stdin closes.
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv("ZONESTORE_LOCK_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	s, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	u, err := s.Lock(context.Background(), "example.com")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	u()
	os.Exit(0)
}

func TestLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "ZONESTORE_LOCK_HELPER="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		stdin.Close()
		t.Fatalf("helper said %q", line)
	}
	s, _ := Open(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx, "example.com"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock held by another process: %v, want deadline exceeded", err)
	}
	stdin.Close() // the helper unlocks and exits
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	u, err := s.Lock(ctx2, "example.com")
	if err != nil {
		t.Fatalf("Lock after the helper exited: %v", err)
	}
	u()
}

// TestCreateNamedTempFallback covers the path used where O_TMPFILE is
// missing: exclusive, complete, no temporary file left.
func TestCreateNamedTempFallback(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "example.com.zone")
	if err := createNamedTemp(dir, path, "example.com", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := createNamedTemp(dir, path, "example.com", []byte("two")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("file holds %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
}

// TestCreateFileMode: the unnamed-file path gives 0644 whatever the umask.
func TestCreateFileMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, err := s.CreateFile("example.com", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode())
	}
}
