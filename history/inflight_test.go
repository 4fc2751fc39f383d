package history

import (
	"context"
	"testing"
	"time"
)

// TestWritingAllocations holds a record change's registration (Writing
// and its end, on every PATCH and record change while the history is on)
// to its write and its end function: the per-zone set and the done
// channel it made each time (5 allocations) are gone.
func TestWritingAllocations(t *testing.T) {
	l := &Log{}
	by := new(int)
	l.Writing("", "warm.test", by)() // the registry's map, made once
	n := testing.AllocsPerRun(200, func() {
		l.Writing("", "example.test", by)()
	})
	if n > 2 {
		t.Fatalf("Writing and its end: %.1f allocations, want at most 2", n)
	}
}

// TestAwaitOthers: a catch-up waits for the other writers' changes of its
// zone in flight, not for its own writer's, nor for other zones' or
// views', and a change's end run twice does nothing.
func TestAwaitOthers(t *testing.T) {
	l := &Log{}
	mine, other := new(int), new(int)
	endMine := l.Writing("", "a.test", mine)
	endOther := l.Writing("", "a.test", other)
	endB := l.Writing("", "b.test", other)
	endView := l.Writing("internal", "a.test", other)
	defer endB()
	defer endView()
	defer endMine()

	done := make(chan struct{})
	go func() {
		l.AwaitOthers(context.Background(), "", "a.test", mine)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("AwaitOthers returned while another writer's change of the zone was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	endOther()
	endOther() // a second run does nothing
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitOthers still waits after the other writer's change ended")
	}

	// Its own writer's change, and other zones' and views', are not waited for.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.AwaitOthers(ctx, "", "a.test", mine)
	if ctx.Err() != nil {
		t.Fatal("AwaitOthers waited for its own writer's change")
	}

	// A wait ends with its context.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	l.AwaitOthers(ctx2, "", "b.test", mine)
	if ctx2.Err() == nil {
		t.Fatal("AwaitOthers returned while b.test's change was in flight")
	}
}
