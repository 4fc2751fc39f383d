// Command hookreceiver is the least a webhook receiver costs: it answers
// every HTTP/1.1 request on its address with 204 after reading its body,
// on kept-alive connections, and checks nothing. BenchmarkEvents runs it
// beside the service on the same cores (a real receiver runs elsewhere),
// so that the receiver's own work takes as little as possible of the CPU
// the service is measured with.
package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

func main() {
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serve(c)
	}
}

func serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		n := 0
		for first := true; ; first = false {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			s := strings.TrimRight(string(line), "\r\n")
			if s == "" {
				if first {
					continue
				}
				break
			}
			if k, v, ok := strings.Cut(s, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
			return
		}
		if _, err := c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n")); err != nil {
			return
		}
	}
}
