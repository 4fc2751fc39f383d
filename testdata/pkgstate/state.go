// Package pkgstate is TestNoPackageStateCatchesState's fixture: one
// package-level variable of each kind the check allows (good*, and the
// guards) and refuses (bad*).
package pkgstate

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"
)

var _ io.Reader = (*reader)(nil)

var (
	goodErr      = errors.New("an error")
	goodWrapped  = fmt.Errorf("wrapped: %w", goodErr)
	goodRegexp   = regexp.MustCompile(`^a+$`)
	goodEOF      = io.ErrUnexpectedEOF
	goodTable    = map[string]int{"a": 1}
	goodSlice    = []string{"a", "b"}
	goodInit     map[string]bool
	goodOnce     sync.Once
	goodOnceSet  string
	goodReadOnly = map[string]int{"b": 2}
	goodBuilt    = func() []int { return []int{1, 2} }()
	goodSentinel = &reader{}
	badPointer   = &struct{ n int }{}
	badLocked    = struct {
		sync.Mutex
		n int
	}{}
	badCounted = &counter{}
	goodValue  = counter{n: 1}
)

var (
	badMutex     sync.Mutex
	badMap       sync.Map
	badCounter   atomic.Uint64
	badCall      = time.Now()
	badLiteral   = "could be a constant"
	badFunc      = time.Now
	badAssigned  = map[string]int{}
	badElement   = map[string]int{}
	badField     = struct{ n int }{}
	badAppend    = []string{}
	badDelete    = map[string]int{}
	badClear     = map[string]int{}
	badAddress   = struct{ n int }{}
	badIncrement = map[string]int{}
	badTestWrite = map[string]int{}
)

type reader struct{}

type counter struct{ n int }

func (c *counter) add() { c.n++ }

func (c counter) get() int { return c.n }

func (*reader) Read([]byte) (int, error) { return 0, io.EOF }

func init() {
	goodInit = map[string]bool{"set": true}
	goodInit["once"] = true
}

func use() {
	goodOnce.Do(func() { goodOnceSet = "set once" })
	_ = goodReadOnly["b"]
	_ = goodBuilt[0]
	_ = goodSentinel == nil
	badPointer.n = 3
	badLocked.Lock()
	badLocked.Unlock()
	badCounted.add()
	_ = goodValue.get()
	for k, v := range goodTable {
		_, _ = k, v
	}
	local := map[string]int{}
	local["x"] = 1
	badAssigned = map[string]int{"new": 1}
	badElement["x"] = 1
	badField.n = 2
	badAppend = append(badAppend, "x")
	delete(badDelete, "x")
	clear(badClear)
	p := &badAddress
	_ = p
	badIncrement["x"]++
	badMutex.Lock()
	badMutex.Unlock()
}
