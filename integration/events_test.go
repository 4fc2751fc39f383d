package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// hookSecret is the webhooks' secret in these tests (32 bytes).
var hookSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("events-integration-secret-32byte"))

// hookReceiver is a webhook receiver on a reserved loopback port that
// is down (nothing listens) until up is called. Every delivery is
// verified with the Standard Webhooks reference library for Go.
type hookReceiver struct {
	t    *testing.T
	addr string
	wh   *standardwebhooks.Webhook

	mu        sync.Mutex
	srv       *http.Server
	accepted  []delivery
	refused   []string
	headerSet []http.Header
}

// delivery is one accepted webhook request.
type delivery struct {
	header http.Header
	body   []byte
	entry  changeEntry
}

func newHookReceiver(t *testing.T) *hookReceiver {
	wh, err := standardwebhooks.NewWebhook(hookSecret)
	if err != nil {
		t.Fatal(err)
	}
	r := &hookReceiver{t: t, wh: wh, addr: fmt.Sprintf("127.0.0.1:%d", testbind.ReservedPort(t))}
	t.Cleanup(r.down)
	return r
}

func (r *hookReceiver) url() string { return "http://" + r.addr + "/hook" }

// up starts listening.
func (r *hookReceiver) up() {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	srv := &http.Server{Handler: r}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// down stops listening: deliveries fail with connection refused.
func (r *hookReceiver) down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if err := r.wh.Verify(body, req.Header); err != nil {
		r.mu.Lock()
		r.refused = append(r.refused, err.Error())
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var e changeEntry
	if err := json.Unmarshal(body, &e); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.accepted = append(r.accepted, delivery{header: req.Header.Clone(), body: body, entry: e})
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *hookReceiver) snapshot() ([]delivery, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.accepted...), append([]string(nil), r.refused...)
}

// waitDeliveries waits until the receiver accepted n distinct events.
func (r *hookReceiver) waitDeliveries(n int) []delivery {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, _ := r.snapshot()
		ids := map[string]bool{}
		for _, d := range got {
			ids[d.entry.ID] = true
		}
		if len(ids) >= n {
			return got
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the receiver has %d distinct events, want %d", len(ids), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inOrderPerZone checks that the first delivery of each event comes in
// id order zone by zone, and returns the distinct events by id.
func inOrderPerZone(t *testing.T, ids []string, zones []string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	last := map[string]uint64{}
	for i, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			t.Fatalf("event id %q", id)
		}
		if n < last[zones[i]] {
			t.Errorf("zone %s: event %d delivered after %d", zones[i], n, last[zones[i]])
		}
		last[zones[i]] = n
	}
	return seen
}

// webhookStatus is GET /api/v1/events/webhooks's entry of one webhook.
type webhookStatus struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Attempts    int    `json:"attempts"`
	LastError   string `json:"lastError"`
	Delivered   int    `json:"delivered"`
	Behind      int    `json:"behind"`
	DeadLetters []struct {
		Zone string `json:"zone"`
		ID   string `json:"id"`
		Held int    `json:"held"`
	} `json:"deadLetters"`
}

func webhooks(t *testing.T, c *caddy) map[string]webhookStatus {
	t.Helper()
	r := c.do("GET", "/api/v1/events/webhooks", nil)
	expect(t, r, 200, "GET /api/v1/events/webhooks")
	var body struct{ Webhooks []webhookStatus }
	if err := json.Unmarshal(r.raw, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]webhookStatus{}
	for _, w := range body.Webhooks {
		out[w.Name] = w
	}
	return out
}

func waitWebhook(t *testing.T, c *caddy, name, what string, cond func(webhookStatus) bool) webhookStatus {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		w := webhooks(t, c)[name]
		if cond(w) {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook %s: timed out waiting for %s: %+v", name, what, w)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// addRecords adds n A records to each zone, zone by zone in turn, and
// returns how many changes were answered 201.
func addRecords(t *testing.T, c *caddy, zones []string, n int) int {
	t.Helper()
	ok := 0
	for i := range n {
		for _, z := range zones {
			r := c.do("POST", "/api/v1/zones/"+z+"/records", map[string]any{"name": fmt.Sprintf("h%d", i), "type": "A", "value": fmt.Sprintf("192.0.2.%d", i%250+1), "ttl": 60})
			expect(t, r, 201, "add a record")
			ok++
		}
	}
	return ok
}

// TestWebhooksThroughCaddy: through the built Caddy and a real named,
// two webhooks: "main" whose receiver is down while zones are created
// and records changed, then up: every event arrives once verified by the
// Standard Webhooks reference library, in order per zone, and each
// payload and its headers validate against the served AsyncAPI
// document's schemas (the drift test of the events actually sent);
// "picky", for one zone's record changes only, whose receiver stays down
// past dead_after: its events become dead letters (API, metrics), and
// after the receiver is up, retry delivers them in order.
func TestWebhooksThroughCaddy(t *testing.T) {
	ns := startNamed(t)
	main, picky := newHookReceiver(t), newHookReceiver(t)
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf(`events {
				webhook %s {
					name main
					secret %s
					retry_min 50ms
					retry_max 400ms
				}
				webhook %s {
					name picky
					secret %s
					types records.changed
					zones b.events.test
					retry_min 50ms
					retry_max 100ms
					dead_after 500ms
				}
			}`, main.url(), hookSecret, picky.url(), hookSecret)})
	waitWebhook(t, c, "main", "idle", func(w webhookStatus) bool { return w.State == "idle" })
	zones := []string{"a.events.test", "b.events.test", "c.events.test"}
	for _, z := range zones {
		expect(t, c.do("POST", "/api/v1/zones", zoneBody(z)), 201, "create "+z)
	}
	changes := addRecords(t, c, zones, 8)
	waitWebhook(t, c, "main", "failed attempts", func(w webhookStatus) bool { return w.Attempts >= 2 && w.LastError != "" })
	picked := waitWebhook(t, c, "picky", "dead letters", func(w webhookStatus) bool {
		return len(w.DeadLetters) == 1 && w.DeadLetters[0].Held == 7 && w.State == "idle"
	})
	if picked.DeadLetters[0].Zone != "b.events.test" {
		t.Errorf("picky's dead letter: %+v", picked.DeadLetters)
	}
	m := scrape(t, c)
	if m[`zoneapi_events_dead_letters{webhook="picky"}`] != 8 || m[`zoneapi_events_dead_lettered_total{webhook="picky"}`] != 8 || m[`zoneapi_events_retried_total{webhook="main"}`] < 2 {
		t.Errorf("metrics: dead_letters %v, dead_lettered %v, retried %v", m[`zoneapi_events_dead_letters{webhook="picky"}`],
			m[`zoneapi_events_dead_lettered_total{webhook="picky"}`], m[`zoneapi_events_retried_total{webhook="main"}`])
	}

	main.up()
	want := len(zones) + changes // one zone.created per zone, one records.changed per add
	got := main.waitDeliveries(want)
	_, refused := main.snapshot()
	if len(refused) > 0 {
		t.Fatalf("deliveries the reference library refused: %v", refused)
	}
	var ids, zs []string
	created := map[string]int{}
	for _, d := range got {
		ids, zs = append(ids, d.entry.ID), append(zs, d.entry.Zone)
		if d.entry.Type == "zone.created" {
			created[d.entry.Zone]++
		}
		if d.entry.Type == "records.changed" && (len(d.entry.Added) != 1 || d.entry.Added[0].Type != "A" || d.entry.Source != "api") {
			t.Errorf("event %s: %s", d.entry.ID, d.body)
		}
	}
	if seen := inOrderPerZone(t, ids, zs); len(seen) != want {
		t.Errorf("%d distinct events delivered, want %d", len(seen), want)
	}
	for _, z := range zones {
		if created[z] != 1 {
			t.Errorf("zone.created of %s delivered %d times", z, created[z])
		}
	}
	checkAsyncAPIDrift(t, c, got)

	// A reload (the history is closed and opened again) keeps the
	// deliverer: later changes arrive, once each.
	reload(t, c, "11s")
	more := addRecords(t, c, zones[:1], 2)
	got = main.waitDeliveries(want + more)
	ids, zs = nil, nil
	for _, d := range got {
		ids, zs = append(ids, d.entry.ID), append(zs, d.entry.Zone)
	}
	if seen := inOrderPerZone(t, ids, zs); len(seen) != want+more {
		t.Errorf("%d distinct events after the reload, want %d", len(seen), want+more)
	}

	picky.up()
	r := c.do("POST", "/api/v1/events/webhooks/picky/retry", nil)
	expect(t, r, 200, "retry picky")
	if r.body["zones"] != 1.0 {
		t.Errorf("retry answer: %s", r.raw)
	}
	pgot := picky.waitDeliveries(8)
	ids, zs = nil, nil
	for _, d := range pgot {
		ids, zs = append(ids, d.entry.ID), append(zs, d.entry.Zone)
		if d.entry.Zone != "b.events.test" || d.entry.Type != "records.changed" {
			t.Errorf("picky got %s %s", d.entry.Zone, d.entry.Type)
		}
	}
	inOrderPerZone(t, ids, zs)
	waitWebhook(t, c, "picky", "no dead letters", func(w webhookStatus) bool { return len(w.DeadLetters) == 0 })
	m = scrape(t, c)
	if m[`zoneapi_events_dead_letters{webhook="picky"}`] != 0 || m[`zoneapi_events_delivered_total{webhook="picky"}`] < 8 || m[`zoneapi_events_delivered_total{webhook="main"}`] < float64(want) {
		t.Errorf("metrics after the retry: %v %v %v", m[`zoneapi_events_dead_letters{webhook="picky"}`], m[`zoneapi_events_delivered_total{webhook="picky"}`], m[`zoneapi_events_delivered_total{webhook="main"}`])
	}
	if m[`zoneapi_events_recorded_total{}`] < float64(want) || m[`zoneapi_history_size_bytes{}`] <= 0 {
		t.Errorf("history metrics: recorded %v, size %v", m[`zoneapi_events_recorded_total{}`], m[`zoneapi_history_size_bytes{}`])
	}
	expect(t, c.do("POST", "/api/v1/events/webhooks/nosuch/retry", nil), 404, "retry an unknown webhook")
}

// checkAsyncAPIDrift validates each delivery's body against the served
// AsyncAPI document's Webhook message payload and its headers against
// the message's headers schema.
func checkAsyncAPIDrift(t *testing.T, c *caddy, got []delivery) {
	t.Helper()
	payload, headers := asyncAPISchemas(t, c, "Webhook")
	for _, d := range got {
		if err := validateJSON(payload, d.body); err != nil {
			t.Errorf("event %s does not match the AsyncAPI payload schema: %v\n%s", d.entry.ID, err, d.body)
		}
		h := map[string]any{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = d.header.Get(k)
		}
		hb, _ := json.Marshal(h)
		if err := validateJSON(headers, hb); err != nil {
			t.Errorf("event %s: headers %s do not match the AsyncAPI headers schema: %v", d.entry.ID, hb, err)
		}
	}
}

// asyncAPISchemas compiles the payload and headers schemas of a message
// of the AsyncAPI document Caddy serves.
func asyncAPISchemas(t *testing.T, c *caddy, message string) (payload, headers *jsonschema.Schema) {
	t.Helper()
	r := c.do("GET", "/api/v1/asyncapi.json", nil)
	expect(t, r, 200, "GET /api/v1/asyncapi.json")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.raw))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft7) // AsyncAPI's Schema Object is a superset of draft 7
	const url = "https://zoneapi.invalid/asyncapi.json"
	if err := comp.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	msg := r.body["components"].(map[string]any)["messages"].(map[string]any)[message].(map[string]any)
	ref := func(key string) *jsonschema.Schema {
		m, ok := msg[key].(map[string]any)
		if !ok {
			return nil
		}
		s, err := comp.Compile(url + m["$ref"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	payload, headers = ref("payload"), ref("headers")
	if payload == nil {
		t.Fatalf("message %s has no payload", message)
	}
	return payload, headers
}

func validateJSON(s *jsonschema.Schema, b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
