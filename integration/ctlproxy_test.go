package integration

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ctlProxy forwards named's control channel and, for the commands its
// rule picks, forwards the command but loses named's reply: it reads the
// reply, drops it and closes the client's connection. named has then
// executed a command whose sender never learns it: the outcome, for the
// client, is unknown.
type ctlProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	rule   func(command string) bool // true: lose the reply
	after  func(command string)      // called once a picked command was forwarded
	// swallow, when set, makes the proxy drop a picked command itself
	// (never forwarded) and close the client's connection: sent, not
	// executed, not answered.
	swallow atomic.Bool
	lost    atomic.Int64 // replies lost
	// picked counts the picked commands forwarded to named: each is a
	// copy named may execute, so a client that sends a command again
	// after its reply was lost shows here as more than one per request.
	picked atomic.Int64
	lostCh chan string // the command of each lost reply
	// seen counts the commands forwarded, by their first word.
	seen map[string]int
}

func newCtlProxy(t testing.TB, target string) *ctlProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &ctlProxy{ln: ln, target: target, lostCh: make(chan string, 64)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *ctlProxy) addr() string { return p.ln.Addr().String() }

// commands returns how many commands whose first word is verb the proxy
// forwarded so far.
func (p *ctlProxy) commands(verb string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[verb]
}

// lose sets the rule: the replies to commands whose text starts with one
// of the verbs are lost (no verbs: none).
func (p *ctlProxy) lose(verbs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(verbs) == 0 {
		p.rule = nil
		return
	}
	p.rule = func(cmd string) bool {
		for _, v := range verbs {
			if cmd == v || strings.HasPrefix(cmd, v+" ") {
				return true
			}
		}
		return false
	}
}

// ctlFrame reads one length-prefixed control message, prefix included.
func ctlFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, 4+binary.BigEndian.Uint32(hdr[:]))
	copy(buf, hdr[:])
	_, err := io.ReadFull(r, buf[4:])
	return buf, err
}

// ctlCommand returns the command text of a control message (its _data
// table's "type" entry, sent as binary data), or "".
func ctlCommand(frame []byte) string {
	key := []byte("\x04type\x01")
	i := bytes.Index(frame, key)
	if i < 0 || i+len(key)+4 > len(frame) {
		return ""
	}
	i += len(key)
	n := int(binary.BigEndian.Uint32(frame[i : i+4]))
	if i+4+n > len(frame) {
		return ""
	}
	return string(frame[i+4 : i+4+n])
}

func (p *ctlProxy) serve(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	var dropNext atomic.Value // the command whose reply is lost, or ""
	dropNext.Store("")
	go func() {
		defer c.Close()
		defer up.Close()
		for {
			f, err := ctlFrame(up)
			if err != nil {
				return
			}
			if cmd := dropNext.Load().(string); cmd != "" {
				p.lost.Add(1)
				select {
				case p.lostCh <- cmd:
				default:
				}
				return // the reply is dropped and the client's connection closed
			}
			if _, err := c.Write(f); err != nil {
				return
			}
		}
	}()
	for {
		f, err := ctlFrame(c)
		if err != nil {
			return
		}
		cmd := ctlCommand(f)
		p.mu.Lock()
		rule, after := p.rule, p.after
		if p.seen == nil {
			p.seen = map[string]int{}
		}
		verb, _, _ := strings.Cut(cmd, " ")
		p.seen[verb]++
		p.mu.Unlock()
		picked := cmd != "" && cmd != "null" && rule != nil && rule(cmd)
		if picked && p.swallow.Load() {
			p.lost.Add(1)
			return // c and up are closed by the defers
		}
		if picked {
			dropNext.Store(cmd)
		}
		if _, err := up.Write(f); err != nil {
			return
		}
		if picked {
			p.picked.Add(1)
		}
		if picked && after != nil {
			after(cmd)
		}
	}
}
