package rndc

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeNamed is a loopback listener that plays named's side of the protocol
// with knobs for misbehaviour; it exercises the client below the network.
type fakeNamed struct {
	ln   net.Listener
	key  Key
	mode string // "ok", "silent", "close", "badsig", "badser", "badnonce", "capture"

	mu       sync.Mutex
	captured [][]byte

	// reply, if set, gives the result, err and text of the answer to a
	// command (its _data type); otherwise every command succeeds with
	// text "ok <type>".
	reply func(typ string) (result, errText, text string)
}

func newFake(t *testing.T, key Key, mode string) *fakeNamed {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeNamed{ln: ln, key: key, mode: mode}
	t.Cleanup(func() { _ = ln.Close() })
	go f.serve()
	return f
}

func (f *fakeNamed) addr() string { return f.ln.Addr().String() }

func (f *fakeNamed) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		go f.handle(c)
	}
}

func readMsg(c net.Conn) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	_, err := io.ReadFull(c, buf)
	return buf, err
}

func (f *fakeNamed) handle(c net.Conn) {
	defer c.Close()
	switch f.mode {
	case "silent":
		_, _ = io.Copy(io.Discard, c)
		return
	case "close":
		_, _ = readMsg(c)
		return
	}
	const nonce = "12345"
	// Like named, it answers further commands on the connection once it
	// has issued its nonce, until the client closes it.
	for round := 0; ; round++ {
		raw, err := readMsg(c)
		if err != nil {
			return
		}
		if f.mode == "capture" {
			f.mu.Lock()
			f.captured = append(f.captured, raw)
			f.mu.Unlock()
			return
		}
		m, err := decodeMessage(raw)
		if err != nil || verify(f.key, m) != nil {
			return
		}
		ctrl, _ := m.top.sub("_ctrl")
		data, _ := m.top.sub("_data")
		ser, _ := ctrl.str("_ser")
		typ, _ := data.str("type")
		if f.mode == "badser" {
			ser = "999"
		}
		rnonce := nonce
		if f.mode == "badnonce" && round == 1 {
			rnonce = "54321"
		}
		reply := table{
			{key: "_ctrl", val: table{
				{key: "_ser", val: ser},
				{key: "_tim", val: strconv.FormatInt(time.Now().Unix(), 10)},
				{key: "_rpl", val: "1"},
				{key: "_nonce", val: rnonce},
			}},
			{key: "_data", val: table{{key: "type", val: typ}, {key: "result", val: "0"}, {key: "text", val: "ok " + typ}}},
		}
		if f.reply != nil && typ != "null" && typ != "" {
			result, errText, text := f.reply(typ)
			d := table{{key: "type", val: typ}, {key: "result", val: result}, {key: "text", val: text}}
			if errText != "" {
				d = append(d, entry{key: "err", val: errText})
			}
			reply[1].val = d
		}
		out, err := encodeMessage(f.key, reply)
		if err != nil {
			return
		}
		if f.mode == "badsig" {
			out[len(out)-1] ^= 1
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

func TestFakeServer(t *testing.T) {
	key := testKey(t, HMACSHA256)
	ctx := context.Background()
	tests := []struct {
		mode    string
		wantErr func(error) bool
	}{
		{"ok", func(err error) bool { return err == nil }},
		{"close", func(err error) bool { return errors.Is(err, ErrAuth) }},
		{"badsig", func(err error) bool { return errors.Is(err, ErrAuth) }},
		{"badnonce", func(err error) bool { return errors.Is(err, ErrAuth) }},
		{"badser", func(err error) bool { return errors.Is(err, errMalformed) && !errors.Is(err, ErrAuth) }},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			f := newFake(t, key, tt.mode)
			c := &Client{Addr: f.addr(), Key: key, Timeout: 2 * time.Second}
			resp, err := c.Command(ctx, "status")
			if !tt.wantErr(err) {
				t.Fatalf("err = %v", err)
			}
			if err == nil && (resp.Text != "ok status" || resp.Result != 0 || resp.Data["type"] != "status") {
				t.Errorf("resp = %+v", resp)
			}
		})
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newFake(t, key, "silent")

	t.Run("context deadline", func(t *testing.T) {
		c := &Client{Addr: f.addr(), Key: key}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Command(ctx, "status")
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrAuth) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 10*time.Second { // the silent fake never answers
			t.Errorf("took %v", d)
		}
	})
	t.Run("client timeout", func(t *testing.T) {
		c := &Client{Addr: f.addr(), Key: key, Timeout: 200 * time.Millisecond}
		start := time.Now()
		_, err := c.Command(context.Background(), "status")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 10*time.Second { // the silent fake never answers
			t.Errorf("took %v", d)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		c := &Client{Addr: f.addr(), Key: key}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.Command(ctx, "status")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 10*time.Second { // the silent fake never answers
			t.Errorf("took %v", d)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		c := &Client{Addr: f.addr(), Key: key}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.Command(ctx, "status"); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestRNDCProgramSignature checks our verifier against what the real rndc
// program sends, for every algorithm (rndc signs its first message).
func TestRNDCProgramSignature(t *testing.T) {
	if _, err := os.Stat("/usr/sbin/rndc"); err != nil {
		t.Skip("rndc program not installed")
	}
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			t.Parallel()
			key := testKey(t, alg)
			f := newFake(t, key, "capture")
			dir := t.TempDir()
			keyFile := filepath.Join(dir, "rndc.key")
			conf := "key \"test-key\" { algorithm " + string(alg) + "; secret \"" + key.SecretBase64() + "\"; };\n" +
				"options { default-key \"test-key\"; };\n"
			if err := os.WriteFile(keyFile, []byte(conf), 0o600); err != nil {
				t.Fatal(err)
			}
			host, port, _ := net.SplitHostPort(f.addr())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = exec.CommandContext(ctx, "/usr/sbin/rndc", "-c", keyFile, "-s", host, "-p", port, "status").Run()
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.captured) != 1 {
				t.Fatalf("captured %d messages", len(f.captured))
			}
			m, err := decodeMessage(f.captured[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := verify(key, m); err != nil {
				t.Fatalf("rndc program's message does not verify: %v", err)
			}
			data, _ := m.top.sub("_data")
			if typ, _ := data.str("type"); typ != "null" {
				t.Errorf("first message type = %q", typ)
			}
		})
	}
}

func TestCommandValidation(t *testing.T) {
	key := testKey(t, HMACSHA256)
	c := &Client{Addr: "127.0.0.1:1", Key: key}
	ctx := context.Background()
	for _, cmd := range []string{"", "  ", "status\nhalt", "a\x00b"} {
		if _, err := c.Command(ctx, cmd); err == nil || errors.Is(err, ErrAuth) {
			t.Errorf("Command(%q) = %v", cmd, err)
		}
	}
	noKey := &Client{Addr: "127.0.0.1:1"}
	if _, err := noKey.Command(ctx, "status"); err == nil {
		t.Error("Command without key succeeded")
	}
}
