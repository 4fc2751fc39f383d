package zonemodel

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// changeJSONEntries are entries whose JSON AppendJSON must write as
// json.Marshal does: every field set and unset, strings that
// encoding/json escapes, times in and out of its range.
func changeJSONEntries() []ChangeEntry {
	s1, s2 := uint32(1), uint32(4294967295)
	at := time.Date(2026, 11, 27, 21, 30, 5, 123456000, time.UTC)
	return []ChangeEntry{
		{},
		{ID: "17", Seq: 17, Time: at, Zone: "example.com", Type: ChangeRecordsChanged, Source: ChangeSourceAPI,
			Identity: "admin", Frontend: "powerdns", RequestID: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
			SerialBefore: &s1, SerialAfter: &s2,
			Added:   []ChangeRRset{{Name: "t1.example.com", Type: "TXT", TTL: 60, Records: []string{`"v1"`, `"a<b>&c" "\"q\""`}}},
			Removed: []ChangeRRset{{Name: "t1.example.com", Type: "TXT", TTL: 60, Records: []string{}}, {Name: "x", Type: "A"}}},
		{ID: "1", Time: at.In(time.FixedZone("", 5*3600+1800)), Zone: "v\u2028\u2029\x00\x1f\x7f\xff\xfe<>&\\\"\b\f\n\r\t é", View: "internal", Type: ChangeZoneCreated, Source: ChangeSourceExternal},
		{Time: at.In(time.FixedZone("", -(23*3600 + 59*60)))},
		{Time: at.In(time.FixedZone("", 24*3600))},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.Local)},
	}
}

func checkChangeEntryJSON(t *testing.T, e ChangeEntry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := e.AppendJSON([]byte("prefix"))
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%+v: json.Marshal's error %v, AppendJSON's %v", e, werr, gerr)
	}
	if werr != nil {
		if string(got) != "prefix" {
			t.Fatalf("%+v: AppendJSON failed but appended %q", e, got)
		}
		return
	}
	if !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("%+v:\nAppendJSON  %s\njson.Marshal %s", e, got[len("prefix"):], want)
	}
}

func TestChangeEntryAppendJSON(t *testing.T) {
	for _, e := range changeJSONEntries() {
		checkChangeEntryJSON(t, e)
	}
}

// FuzzChangeEntryJSON holds AppendJSON to json.Marshal for any strings,
// numbers and time.
func FuzzChangeEntryJSON(f *testing.F) {
	f.Add("17", int64(1764279005), int64(123456000), 0, "example.com", "", "admin", "t1.example.com", `"v1"`, uint32(60), true, false)
	f.Add("", int64(-62135596800), int64(0), 5*3600+1800, "v\u2028\xff<", "in&", "", "", "", uint32(0), false, true)
	f.Fuzz(func(t *testing.T, id string, sec, nsec int64, offset int, zone, view, identity, name, record string, ttl uint32, serials, nilRecords bool) {
		s := uint32(ttl)
		e := ChangeEntry{ID: id, Time: time.Unix(sec, nsec).In(time.FixedZone("", offset)), Zone: zone, View: view, Type: record,
			Source: name, Identity: identity, Frontend: view, RequestID: zone}
		if serials {
			e.SerialBefore, e.SerialAfter = &s, &s
		}
		rs := ChangeRRset{Name: name, Type: identity, TTL: ttl, Records: []string{record, id}}
		if nilRecords {
			rs.Records = nil
		}
		if name != "" {
			e.Added = []ChangeRRset{rs}
		}
		if record != "" {
			e.Removed = []ChangeRRset{rs, rs}
		}
		checkChangeEntryJSON(t, e)
	})
}

func BenchmarkChangeEntryJSON(b *testing.B) {
	e := changeJSONEntries()[1]
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = e.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
