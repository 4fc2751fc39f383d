package rndc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// ServeConn speaks the server side of the control channel on conn, as
// named does, until the peer closes it: the first message gets a nonce,
// every later one (which must carry it) is answered by calling answer with
// the command text. A message that is not signed with key ends the session
// without a reply, as named closes such a connection.
//
// It exists so that tests of code that uses a Client can run against a
// fake named (package rndctest); it is not a control-channel server to
// deploy.
func ServeConn(conn net.Conn, key Key, answer func(command string) Response) error {
	const nonce = "1234567"
	for first := true; ; first = false {
		raw, err := readFrame(conn)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		m, err := decodeMessage(raw)
		if err != nil {
			return err
		}
		if err := verify(key, m); err != nil {
			return err
		}
		ctrl, _ := m.top.sub("_ctrl")
		data, _ := m.top.sub("_data")
		ser, _ := ctrl.str("_ser")
		command, _ := data.str("type")
		if !first {
			if n, _ := ctrl.str("_nonce"); n != nonce {
				return fmt.Errorf("rndc: command without the session's nonce")
			}
		}
		out := table{{key: "type", val: command}, {key: "result", val: "0"}}
		if !first {
			resp := answer(command)
			out = table{{key: "type", val: command}, {key: "result", val: strconv.Itoa(resp.Result)}}
			if resp.Text != "" {
				out = append(out, entry{key: "text", val: resp.Text})
			}
			if resp.Err != "" {
				out = append(out, entry{key: "err", val: resp.Err})
			}
		}
		reply := table{
			{key: "_ctrl", val: table{
				{key: "_ser", val: ser},
				{key: "_tim", val: strconv.FormatInt(time.Now().Unix(), 10)},
				{key: "_rpl", val: "1"},
				{key: "_nonce", val: nonce},
			}},
			{key: "_data", val: out},
		}
		b, err := encodeMessage(key, reply)
		if err != nil {
			return err
		}
		if _, err := conn.Write(b); err != nil {
			return err
		}
	}
}

// readFrame reads one length-prefixed message body.
func readFrame(c net.Conn) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes exceeds the %d-byte limit", errMalformed, n, MaxMessageSize)
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(c, buf)
	return buf, err
}
