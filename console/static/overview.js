// The overview: named's status, readiness, zone counts and the latest
// changes across zones, kept live by the event stream.

import { h, replace, errorBox } from './dom.js';
import { request, session } from './api.js';
import { subscribe } from './events.js';
import { entryView, readLast } from './changes.js';

class Overview extends HTMLElement {
  connectedCallback() {
    this.status = h('section', { class: 'card', 'aria-labelledby': 'ov-named' }, h('h2', { id: 'ov-named' }, 'named'), h('p', {}, 'Loading…'));
    this.ready = h('section', { class: 'card', 'aria-labelledby': 'ov-ready' }, h('h2', { id: 'ov-ready' }, 'Readiness'), h('p', {}, 'Loading…'));
    this.counts = h('section', { class: 'card', 'aria-labelledby': 'ov-zones' }, h('h2', { id: 'ov-zones' }, 'Zones'), h('p', {}, 'Loading…'));
    this.latest = h('ol', { class: 'changes', reversed: true, 'aria-live': 'polite' });
    replace(this, h('h1', {}, 'Overview'), h('div', { class: 'cards' }, this.status, this.ready, this.counts),
      h('section', { 'aria-labelledby': 'ov-latest' }, h('h2', { id: 'ov-latest' }, 'Latest changes'), this.latest));
    this.load();
  }

  disconnectedCallback() { if (this.sub) this.sub.close(); }

  async load() {
    const card = (el, ...body) => replace(el, el.firstChild, ...body);
    const dl = (pairs) => h('dl', {}, pairs.map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));
    if (session.me.server) {
      request('GET', '/server/status').then((s) => card(this.status, dl([
        ['version', s.version], ['running', s.serverUp ? 'yes' : 'no'], ['zones', s.numberOfZones], ['transfers running', s.xfersRunning ?? 0],
      ]))).catch((e) => card(this.status, errorBox(e)));
    } else {
      card(this.status, h('p', {}, 'Your token may not read the server status (it needs the server action).'));
    }
    fetchReady().then((r) => card(this.ready, h('p', { class: r.ready ? 'ok' : 'bad' }, r.ready ? 'Ready' : 'Not ready'),
      r.checks && r.checks.length ? h('ul', {}, r.checks.map((c) => h('li', {}, c))) : null,
      r.zonesNotLoaded && r.zonesNotLoaded.length ? [h('p', {}, 'Zones named does not load:'), h('ul', {}, r.zonesNotLoaded.map((c) => h('li', {}, c)))] : null))
      .catch((e) => card(this.ready, errorBox(e)));
    request('GET', '/zones?limit=1').then(async (l) => {
      const rows = [['managed', l.total ?? l.count]];
      try {
        const all = await request('GET', '/zones?all=true&limit=1000');
        const un = all.items.filter((z) => !z.managed).length;
        rows.push(['not managed' + (all.nextCursor ? ' (first 1000)' : ''), un]);
        const views = new Map();
        for (const z of all.items) if (z.view) views.set(z.view, (views.get(z.view) || 0) + 1);
        for (const [v, n] of views) rows.push(['view ' + v, n]);
      } catch { /* without a statistics channel only the managed count */ }
      card(this.counts, dl(rows));
    }).catch((e) => card(this.counts, errorBox(e)));
    try {
      const last = await readLast(request, '/changes', 20);
      replace(this.latest, last.reverse().map((c) => entryView(c)));
      const lastId = last.length ? last[0].id : '';
      this.sub = subscribe('', lastId, (c) => {
        this.latest.prepend(entryView(c));
        while (this.latest.children.length > 20) this.latest.lastChild.remove();
      });
    } catch (e) {
      replace(this.latest, h('li', {}, errorBox(e)));
    }
  }
}

// fetchReady asks /ready, which answers 503 with the failing checks.
async function fetchReady() {
  try {
    return await request('GET', '/ready');
  } catch (e) {
    if (e.status === 503 && e.body) return e.body;
    throw e;
  }
}
customElements.define('za-overview', Overview);
