// Package events pushes the change history to whoever listens: a Server-Sent Events stream (Stream, mounted by the zone_api
// handler at GET /api/v1/events) and outbound webhooks signed as the
// Standard Webhooks specification says (Webhook, Deliverer).
//
// Both read the durable history, never a queue of their own: an event is
// an entry (zonemodel.ChangeEntry, which package history records), its SSE
// id and the suffix of its webhook-id are the entry's ID, and its JSON is
// the entry's JSON, unchanged. The history is reached through the
// contract's interfaces (frontend.ChangeLog, frontend/changes.go), never
// package history itself. So a stream client
// that reconnects with Last-Event-ID resumes exactly where it stopped,
// across network drops and restarts of the server, and a webhook's
// durable state is a cursor into the history (the last sequence number
// settled) plus its dead letters: nothing is copied on the path of a
// record change, which only appends to the history, so a slow or dead
// receiver never slows a change.
//
// Deliveries to one webhook are sequential, in history order, so in
// order per zone; each is retried with exponential backoff until it is
// acknowledged (any 2xx) or the retry limit passes. Then it becomes a
// dead letter and the later events of its zone (and view) follow it
// there without being tried, keeping the zone's order, while other zones
// go on. Retry puts a webhook's dead letters back in the queue, ahead of
// everything else. The webhook-id of an event is the same for every
// attempt, so receivers can drop the duplicates that at-least-once
// delivery allows (a crash between a delivery and the cursor's write).
//
// API is the feed's endpoints in the REST API: the stream (GET
// /api/v1/events), the webhooks' state and the retry of their dead
// letters; ReadChanges reads the pages of GET /api/v1/changes, and
// Visible is what of the history an identity may read, for both. The
// package knows nothing of Caddy: the zone_api handler parses the
// configuration, provisions, routes, authenticates and authorises each
// request, and gives API its hooks (the history, the identity, the REST
// API's bodies).
package events
