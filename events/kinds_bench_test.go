package events

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkReadChangesUnknownKinds: a query of many distinct values that
// are not change types (GET /api/v1/changes?kind=a,b,c,…, which a 1 MB
// request line holds some 200,000 of) is refused in time linear in their
// number. Each value was once kept in the filter's list after a search of
// the list, so the refusal cost the square of their number. It prints the
// time of 2n values over the time of n in the same run: about 2 when
// linear, about 4 when quadratic.
func BenchmarkReadChangesUnknownKinds(b *testing.B) {
	query := func(n int) url.Values {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.FormatInt(int64(i), 36))
		}
		return url.Values{"kind": {sb.String()}}
	}
	const n = 10000
	small, large := query(n), query(2*n)
	refuse := func(q url.Values) time.Duration {
		start := time.Now()
		_, err := ReadChanges(q, nil, nil, Page{Limit: 100, MaxLimit: 1000})
		var qe *QueryError
		if !errors.As(err, &qe) {
			b.Fatalf("ReadChanges: %v, want a QueryError", err)
		}
		return time.Since(start)
	}
	var tSmall, tLarge time.Duration
	for i := 0; i < b.N; i++ {
		tSmall += refuse(small)
		tLarge += refuse(large)
	}
	b.ReportMetric(float64(tLarge)/float64(tSmall), "ratio_2n/n")
	b.ReportMetric(float64(tLarge.Microseconds())/float64(b.N), "µs/20000kinds")
}
