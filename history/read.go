package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// maxLine bounds one entry's line (a record change of many RRsets).
const maxLine = 64 << 20

// Read returns the entries with Seq greater than after that f selects,
// oldest first, at most limit of them (limit <= 0: 1000). Entries that
// retention dropped are skipped silently: compare First with after+1.
func (l *Log) Read(after uint64, f Filter, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 1000
	}
	l.mu.Lock()
	durable := l.durable
	var out []Entry
	if len(l.tail) > 0 && l.tail[0].Seq <= after+1 {
		// All of it is in memory: from the first entry after after (the
		// tail is in Seq order), matched outside the lock, which appends
		// take (the tail's entries never change once in it; a flush only
		// appends past its length or moves to a new array).
		i := sort.Search(len(l.tail), func(i int) bool { return l.tail[i].Seq > after })
		tail := l.tail[i:len(l.tail):len(l.tail)]
		l.mu.Unlock()
		for _, e := range tail {
			if e, ok := f.Match(e); ok {
				out = append(out, e)
				if len(out) == limit {
					break
				}
			}
		}
		return out, nil
	}
	segs := append([]segment(nil), l.segs...)
	l.mu.Unlock()
	if after >= durable {
		return nil, nil
	}
	// From the last segment beginning at or before after+1.
	i := 0
	for j, s := range segs {
		if s.first <= after+1 {
			i = j
		}
	}
	for ; i < len(segs) && len(out) < limit; i++ {
		s := segs[i]
		if s.last < s.first || s.last <= after {
			continue
		}
		_, err := scanUpTo(s.path, 0, s.size, func(e Entry, _ int64) bool {
			if e.Seq <= after || e.Seq > durable {
				return true
			}
			if e, ok := f.Match(e); ok {
				out = append(out, e)
			}
			return len(out) < limit
		})
		if errors.Is(err, os.ErrNotExist) {
			continue // dropped by retention meanwhile
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// scan reads a segment's entries from offset off, calling fn with each
// and the offset after its line, until fn returns false or a line does
// not parse (a torn tail). It returns the offset after the last good
// line read.
func scan(path string, off int64, fn func(Entry, int64) bool) (int64, error) {
	return scanUpTo(path, off, -1, fn)
}

// scanUpTo is scan reading at most up to offset end (-1: to the end).
func scanUpTo(path string, off, end int64, fn func(Entry, int64) bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return off, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, fmt.Errorf("history: %w", err)
	}
	var r io.Reader = f
	if end >= 0 {
		r = io.LimitReader(f, end-off)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	pos := off
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) < maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			// io.EOF with a partial line: a torn tail.
			if errors.Is(err, io.EOF) {
				return pos, nil
			}
			return pos, fmt.Errorf("history: reading %s: %w", path, err)
		}
		e, ok := decode(line)
		if !ok {
			return pos, nil
		}
		pos += int64(len(line))
		if !fn(e, pos) {
			return pos, nil
		}
	}
}

// decode parses one line.
func decode(line []byte) (Entry, bool) {
	var e Entry
	if err := json.Unmarshal(bytes.TrimSuffix(line, []byte{'\n'}), &e); err != nil {
		return e, false
	}
	seq, ok := ParseID(e.ID)
	if !ok || seq == 0 {
		return e, false
	}
	e.Seq = seq
	return e, true
}
