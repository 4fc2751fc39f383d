package apispec

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"gopkg.in/yaml.v3"
)

// AsyncAPI generates an AsyncAPI 3.0 document for the resources whose
// asyncapi block enables publish or subscribe; resources without one are
// left out. Each such resource gets a channel at its collection path
// carrying messages whose payload is the item schema; publish: true adds
// an operation with action "send" (the service publishes changes) and
// subscribe: true one with action "receive" (the service consumes them).
// The result is indented JSON.
func AsyncAPI(rs []*Resource, opt Options) ([]byte, error) {
	channels := map[string]any{}
	operations := map[string]any{}
	schemas := map[string]any{}
	messages := map[string]any{}
	servers := map[string]any{}
	for _, r := range rs {
		if !r.publishes() && !r.subscribes() {
			continue
		}
		c := componentName(r.Kind)
		chID := strings.ReplaceAll(r.Kind, "-", "_")
		schemas[c] = cleanSchema(r.Schema.Items, false)
		messages[c] = map[string]any{
			"name":        c,
			"title":       c,
			"contentType": "application/json",
			"payload":     map[string]any{"$ref": "#/components/schemas/" + c},
		}
		ch := map[string]any{
			"address":  r.BasePath(),
			"messages": map[string]any{c: map[string]any{"$ref": "#/components/messages/" + c}},
		}
		if r.Metadata.Description != "" {
			ch["description"] = r.Metadata.Description
		}
		channels[chID] = ch
		msgRef := []any{map[string]any{"$ref": "#/channels/" + chID + "/messages/" + c}}
		chRef := map[string]any{"$ref": "#/channels/" + chID}
		if r.publishes() {
			operations["publish"+c] = map[string]any{
				"action": "send", "channel": chRef, "messages": msgRef,
				"summary": "The service publishes " + r.Kind + " as they change.",
			}
		}
		if r.subscribes() {
			operations["subscribe"+c] = map[string]any{
				"action": "receive", "channel": chRef, "messages": msgRef,
				"summary": "The service receives " + r.Kind + " sent to it.",
			}
		}
		if r.AsyncAPI.Servers != nil {
			for _, name := range sortedKeys(r.AsyncAPI.Servers) {
				s, err := asyncServer(r.AsyncAPI.Servers[name])
				if err != nil {
					return nil, fmt.Errorf("%s: asyncapi.servers.%s: %v", r.File, name, err)
				}
				if old, ok := servers[name]; ok && !jsonEqual(old, s) {
					return nil, fmt.Errorf("%s: asyncapi.servers.%s differs from another resource's server of that name", r.File, name)
				}
				servers[name] = s
			}
		}
	}
	doc := map[string]any{
		"asyncapi":           "3.0.0",
		"info":               info(rs, opt),
		"defaultContentType": "application/json",
		"channels":           channels,
		"operations":         operations,
		"components":         map[string]any{"schemas": schemas, "messages": messages},
	}
	if len(servers) > 0 {
		doc["servers"] = servers
	}
	for i, f := range opt.AsyncFragments {
		var frag map[string]any
		if err := yaml.Unmarshal(f, &frag); err != nil {
			return nil, fmt.Errorf("asyncapi fragment %d: %v", i+1, err)
		}
		frag, err := normalizeYAML(frag)
		if err != nil {
			return nil, fmt.Errorf("asyncapi fragment %d: %v", i+1, err)
		}
		delete(frag, "asyncapi")
		delete(frag, "info")
		mergeDeep(doc, frag)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// mergeDeep merges src into dst: maps key by key, recursively; any other
// value of src replaces dst's.
func mergeDeep(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeDeep(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// asyncServer converts a server to AsyncAPI 3 form: firestone's (AsyncAPI
// 2) url becomes host and pathname.
func asyncServer(s map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range s {
		if k != "url" {
			out[k] = v
		}
	}
	if u, ok := s["url"].(string); ok {
		if !strings.Contains(u, "://") {
			u = "//" + u
		}
		pu, err := url.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("url: %v", err)
		}
		out["host"] = pu.Host
		if pu.Path != "" {
			out["pathname"] = pu.Path
		}
	}
	if _, ok := out["host"]; !ok {
		return nil, fmt.Errorf("a server needs a url or a host")
	}
	return out, nil
}

// YAML converts a JSON document (for example AsyncAPI's output) to YAML.
func YAML(jsonDoc []byte) []byte { return jsonToYAML(jsonDoc) }
