package connpool

import (
	"testing"
	"time"
)

type conn struct {
	id     int
	closed *[]int
}

func (c conn) Close() error { *c.closed = append(*c.closed, c.id); return nil }

// TestPool: newest first, stale and surplus connections dropped, none
// kept after Close.
func TestPool(t *testing.T) {
	var closed []int
	var p Pool[conn]
	c := func(id int) conn { return conn{id, &closed} }
	if _, ok := p.Get(time.Minute); ok {
		t.Fatal("an empty pool gave a connection")
	}
	if !p.Put(c(1), 2) || !p.Put(c(2), 2) || p.Put(c(3), 2) {
		t.Fatal("Put kept more than max, or fewer")
	}
	if got, ok := p.Get(time.Minute); !ok || got.id != 2 {
		t.Fatalf("Get = %v %v, want the newest (2)", got.id, ok)
	}
	if _, ok := p.Get(0); ok { // every idle connection is older than 0
		t.Fatal("Get gave a stale connection")
	}
	p.Put(c(4), 2)
	p.Close()
	if p.Put(c(5), 2) {
		t.Fatal("a closed pool kept a connection")
	}
	if want := []int{3, 1, 4, 5}; len(closed) != len(want) || closed[0] != 3 || closed[1] != 1 || closed[2] != 4 || closed[3] != 5 {
		t.Errorf("closed %v, want %v", closed, want)
	}
	if p.Put(c(6), 0) {
		t.Error("max 0 kept a connection")
	}
	var dropped []int
	q := Pool[conn]{Discard: func(c conn) { dropped = append(dropped, c.id) }}
	q.Put(c(7), 1)
	q.CloseIdle()
	if len(dropped) != 1 || dropped[0] != 7 {
		t.Errorf("Discard saw %v, want [7]", dropped)
	}
}
