package module

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// duplicateKey returns the first key that appears twice in one JSON object
// of data (keys compared as encoding/json matches struct fields: ignoring
// case), with the JSON Pointer of that object, or ok false when there is
// none. encoding/json keeps the last of duplicate keys silently, so a body
// such as {"zoneName":"a","zoneName":"b"} would otherwise be read as one
// of its meanings. data must be valid JSON.
func duplicateKey(data []byte) (key, where string, ok bool) {
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
		path      string // pointer of this value
		lastKey   string
		index     int
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	// childPath is the pointer of the next value inside the top frame.
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			return top.path + "/" + escapePointer(top.lastKey)
		}
		return top.path + "/" + itoa(top.index)
	}
	// valueDone records that a value of the top frame ended.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", "", false
		}
		if err != nil {
			return "", "", false
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				stack = append(stack, &frame{object: d == '{', expectKey: d == '{', keys: map[string]bool{}, path: childPath()})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.object && top.expectKey {
				k, _ := tok.(string)
				folded := strings.ToLower(k)
				if top.keys[folded] {
					where := top.path
					if where == "" {
						where = "(body)"
					}
					return k, where, true
				}
				top.keys[folded] = true
				top.lastKey = k
				top.expectKey = false
				continue
			}
		}
		valueDone()
	}
}

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
