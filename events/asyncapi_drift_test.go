package events

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/specdrift"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestAsyncAPIMatchesTheEventType: the AsyncAPI document's Event payload
// has exactly the JSON fields of history.Entry (and its RRsets those of
// history.RRset), its type enum is zonemodel.ChangeTypes, its source enum the two
// sources, and the webhook headers are the ones Signer sets. The
// integration test TestWebhooksThroughCaddy validates the events actually
// sent against the same document.
func TestAsyncAPIMatchesTheEventType(t *testing.T) {
	raw, err := apispec.ServiceAsyncAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	ev := doc.Components.Schemas["Event"]
	if got, want := ev.fields(), specdrift.JSONFields(reflect.TypeFor[history.Entry]()); !slices.Equal(got, want) {
		t.Errorf("AsyncAPI Event properties %v, history.Entry JSON fields %v", got, want)
	}
	for _, list := range []string{"added", "removed"} {
		if got, want := ev.Properties[list].Items.fields(), specdrift.JSONFields(reflect.TypeFor[history.RRset]()); !slices.Equal(got, want) {
			t.Errorf("AsyncAPI Event %s items %v, history.RRset JSON fields %v", list, got, want)
		}
	}
	if got := ev.Properties["type"].Enum; !slices.Equal(got, zonemodel.ChangeTypes) {
		t.Errorf("AsyncAPI Event type enum %v, zonemodel.ChangeTypes %v", got, zonemodel.ChangeTypes)
	}
	if got := ev.Properties["source"].Enum; !slices.Equal(got, []string{history.SourceAPI, history.SourceExternal}) {
		t.Errorf("AsyncAPI Event source enum %v", got)
	}
	if got, want := doc.Components.Schemas["WebhookHeaders"].fields(), []string{HeaderID, HeaderSignature, HeaderTimestamp}; !slices.Equal(got, want) {
		t.Errorf("AsyncAPI webhook headers %v, Signer's %v", got, want)
	}
}

// schema is the part of a JSON Schema the drift test reads.
type schema struct {
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	Enum       []string           `json:"enum"`
}

func (s *schema) fields() []string {
	if s == nil {
		return nil
	}
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
