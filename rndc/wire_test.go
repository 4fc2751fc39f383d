package rndc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

func testKey(t testing.TB, alg Algorithm) Key {
	t.Helper()
	k, err := NewKey("test-key", string(alg), "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// goldenBody is the message of goldenHex, built independently (in Python,
// with its hmac module) for key testKey(HMACSHA256).
var goldenBody = table{
	{key: "_ctrl", val: table{
		{key: "_ser", val: []byte("1")},
		{key: "_tim", val: []byte("1700000000")},
		{key: "_exp", val: []byte("1700000060")},
	}},
	{key: "_data", val: table{{key: "type", val: []byte("status")}}},
}

const goldenHex = "000000cb00000001055f61757468020000006304687368610100000059a32b582b6d6573434f383754444c7a6155316a3170666f63377842726c59476b4b6b4b764665614d6570536b3d0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000055f6374726c0200000033045f736572010000000131045f74696d010000000a31373030303030303030045f657870010000000a31373030303030303630055f64617461020000001004747970650100000006737461747573"

func TestGoldenMessage(t *testing.T) {
	want, _ := hex.DecodeString(goldenHex)
	got, err := encodeMessage(testKey(t, HMACSHA256), goldenBody)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded message differs from golden bytes:\n got %x\nwant %x", got, want)
	}
	m, err := decodeMessage(want[4:])
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(testKey(t, HMACSHA256), m); err != nil {
		t.Fatalf("verify golden: %v", err)
	}
	if !reflect.DeepEqual(m.top[1:], goldenBody) {
		t.Errorf("decoded body = %#v", m.top[1:])
	}
}

func TestGoldenMD5Signature(t *testing.T) {
	signed, err := encodeTable(nil, goldenBody)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := signature(testKey(t, HMACMD5), signed)
	if err != nil {
		t.Fatal(err)
	}
	if string(sig) != "SOStcWTokLgh0rdk34mg2g" {
		t.Errorf("md5 signature = %q", sig)
	}
}

func TestRoundTrip(t *testing.T) {
	tests := map[string]table{
		"empty":    {},
		"binary":   {{key: "a", val: []byte("hello")}, {key: "empty", val: []byte{}}},
		"nested":   {{key: "t", val: table{{key: "u", val: table{{key: "v", val: []byte{0, 1, 2, 255}}}}}}},
		"list":     {{key: "l", val: list{[]byte("x"), table{{key: "k", val: []byte("v")}}, list{}, list{[]byte("y")}}}},
		"long key": {{key: string(bytes.Repeat([]byte("k"), 255)), val: []byte("v")}},
	}
	for name, tab := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := encodeTable(nil, tab)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeTable(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(tab) == 0 && len(got) == 0 {
				return
			}
			if !reflect.DeepEqual(normalize(got), normalize(tab)) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, tab)
			}
		})
	}
	if _, err := encodeTable(nil, table{{key: string(make([]byte, 256)), val: []byte("v")}}); err == nil {
		t.Error("256-byte key accepted")
	}
}

// normalize maps nil and empty slices/lists to the same value.
func normalize(v any) any {
	switch v := v.(type) {
	case []byte:
		if len(v) == 0 {
			return []byte{}
		}
		return v
	case table:
		out := table{}
		for _, e := range v {
			out = append(out, entry{key: e.key, val: normalize(e.val)})
		}
		return out
	case list:
		out := list{}
		for _, el := range v {
			out = append(out, normalize(el))
		}
		return out
	}
	return v
}

func TestSignVerifyAllAlgorithms(t *testing.T) {
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			k := testKey(t, alg)
			msg, err := encodeMessage(k, goldenBody)
			if err != nil {
				t.Fatal(err)
			}
			if n := binary.BigEndian.Uint32(msg); int(n) != len(msg)-4 {
				t.Fatalf("length prefix %d, message %d", n, len(msg)-4)
			}
			m, err := decodeMessage(msg[4:])
			if err != nil {
				t.Fatal(err)
			}
			if err := verify(k, m); err != nil {
				t.Fatalf("verify: %v", err)
			}
			auth, _ := m.top.sub("_auth")
			field, size := "hsha", 89
			if alg == HMACMD5 {
				field, size = "hmd5", 22
			}
			if v, ok := auth.str(field); !ok || len(v) != size {
				t.Errorf("_auth.%s has %d bytes, want %d", field, len(v), size)
			}

			// Any change to the signed part is detected.
			authLen := len(msg) - len(m.signed)
			for i := authLen; i < len(msg); i++ {
				bad := bytes.Clone(msg)
				bad[i] ^= 0x01
				m, err := decodeMessage(bad[4:])
				if err != nil {
					continue // broken structure: also rejected
				}
				if err := verify(k, m); err == nil {
					t.Fatalf("tampered byte %d accepted", i)
				}
			}
			// A tampered signature is detected.
			bad := bytes.Clone(msg)
			bad[authLen-1] ^= 0x01
			if m, err := decodeMessage(bad[4:]); err == nil && verify(k, m) == nil {
				t.Fatal("tampered signature accepted")
			}
			// Another secret, or another algorithm, does not verify.
			other := k
			other.Secret = []byte("another secret")
			if verify(other, m) == nil {
				t.Fatal("verified with the wrong secret")
			}
			for _, a2 := range Algorithms {
				if a2 != alg && verify(testKey(t, a2), m) == nil {
					t.Fatalf("verified with algorithm %s", a2)
				}
			}
		})
	}
}

func TestVerifyMissingAuth(t *testing.T) {
	b, _ := encodeTable(binary.BigEndian.AppendUint32(nil, 1), goldenBody)
	m, err := decodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(testKey(t, HMACSHA256), m); !errors.Is(err, errBadSignature) {
		t.Errorf("verify unsigned = %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := []byte{}
	for i := 0; i < maxDepth+5; i++ {
		deep = append([]byte{1, 'k', typeTable, 0, 0, 0, 0}, deep...)
	}
	// Fix up the nested lengths from the inside out.
	for i := maxDepth + 4; i >= 0; i-- {
		off := i * 7
		binary.BigEndian.PutUint32(deep[off+3:off+7], uint32(len(deep)-off-7))
	}
	tests := map[string][]byte{
		"empty":           {},
		"short version":   {0, 0, 1},
		"bad version":     {0, 0, 0, 2},
		"truncated key":   {0, 0, 0, 1, 5, 'a'},
		"truncated value": {0, 0, 0, 1, 1, 'a', typeBinary, 0, 0},
		"length too big":  {0, 0, 0, 1, 1, 'a', typeBinary, 0xff, 0xff, 0xff, 0xff, 'x'},
		"unknown type":    {0, 0, 0, 1, 1, 'a', 9, 0, 0, 0, 0},
		"deep nesting":    append([]byte{0, 0, 0, 1}, deep...),
		"deep list":       append([]byte{0, 0, 0, 1, 1, 'l'}, deepList(maxDepth+3)...),
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeMessage(in); err == nil {
				t.Error("no error")
			}
		})
	}
}

func deepList(n int) []byte {
	b := []byte{}
	for i := 0; i < n; i++ {
		b = append(binary.BigEndian.AppendUint32([]byte{typeList}, uint32(len(b))), b...)
	}
	return b
}

func FuzzDecode(f *testing.F) {
	golden, _ := hex.DecodeString(goldenHex)
	f.Add(golden[4:])
	for _, alg := range Algorithms {
		msg, _ := encodeMessage(testKey(f, alg), goldenBody)
		f.Add(msg[4:])
	}
	f.Add([]byte{0, 0, 0, 1, 1, 'l', typeList, 0, 0, 0, 5, typeList, 0, 0, 0, 0})
	keys := []Key{testKey(f, HMACMD5), testKey(f, HMACSHA256)}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMessage(data)
		if err != nil {
			return
		}
		for _, k := range keys {
			_ = verify(k, m)
		}
		_ = traceMap(m.top)
		// What decodes re-encodes and decodes to the same thing.
		b, err := encodeTable(nil, m.top)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := decodeTable(b, 0)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(normalize(again), normalize(m.top)) {
			t.Fatal("re-decoded table differs")
		}
	})
}
