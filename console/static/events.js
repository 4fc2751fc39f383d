// The change events: the Server-Sent Events stream read with fetch (an
// EventSource cannot send the Authorization header), resumed after a
// drop with Last-Event-ID so that no change is missed.

import { apiURL, authHeaders, needSignIn } from './api.js';

// subscribe streams the changes matching query (e.g. zone=example.com)
// after lastId ('' for the next ones) to onChange until close().
export function subscribe(query, lastId, onChange, onState = () => {}) {
  let closed = false;
  let ctl = null;
  async function run() {
    while (!closed) {
      ctl = new AbortController();
      try {
        const headers = { Accept: 'text/event-stream', ...authHeaders() };
        if (lastId) headers['Last-Event-ID'] = lastId;
        const res = await fetch(apiURL('/events' + (query ? '?' + query : '')), { headers, signal: ctl.signal, cache: 'no-store', credentials: 'omit' });
        if (res.status === 401) { onState('signin'); await needSignIn('Sign in again to keep following changes'); continue; }
        if (!res.ok) { onState('error', res.status); await sleep(3000); continue; }
        onState('live');
        await read(res.body, (id, data) => {
          if (id) lastId = id;
          try { onChange(JSON.parse(data)); } catch (e) { console.warn('event', e); }
        });
      } catch (e) {
        if (closed) return;
      }
      onState('reconnecting');
      await sleep(1000);
    }
  }
  run();
  return { close() { closed = true; if (ctl) ctl.abort(); } };
}

// read parses the stream: events end at a blank line; comments (':')
// are skipped.
async function read(body, emit) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let id = '';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) emit(id, data.join('\n'));
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const k = i < 0 ? line : line.slice(0, i);
      const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (k === 'id') id = v;
      else if (k === 'data') data.push(v);
    }
  }
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
