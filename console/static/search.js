// Search: records across every zone the token may read, by name, type or
// value, in every view (on a server with views each hit names its zone's
// view and links to the zone's page in it). Each zone's records are read
// (by AXFR behind the API, cached by serial), four zones at a time.

import { h, replace, errorBox, field } from './dom.js';
import { request, zonePath } from './api.js';
import { relName } from './rrsets.js';
import { zoneHref } from './changes.js';

const maxResults = 500;

class Search extends HTMLElement {
  connectedCallback() {
    this.q = h('input', { type: 'search', placeholder: 'www, MX or 192.0.2.1', required: true });
    this.progress = h('p', { 'aria-live': 'polite', class: 'msg' });
    this.results = h('div');
    replace(this, h('h1', {}, 'Search records'),
      h('form', { role: 'search', class: 'filters', onsubmit: (e) => { e.preventDefault(); this.run(); } },
        field('Name, type or value', this.q), h('button', { type: 'submit', class: 'primary' }, 'Search')),
      this.progress, this.results);
    this.q.focus();
  }

  async run() {
    const q = this.q.value.trim().toLowerCase();
    if (!q) return;
    const run = (this.runs = (this.runs || 0) + 1);
    const hits = [];
    replace(this.results);
    try {
      let zones = [];
      let cursor = '';
      for (;;) {
        const l = await request('GET', '/zones?limit=1000' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
        zones = zones.concat(l.items || l.zones.map((name) => ({ name })));
        if (!l.nextCursor) break;
        cursor = l.nextCursor;
      }
      let done = 0;
      const next = async () => {
        while (zones.length && run === this.runs && hits.length < maxResults) {
          const { name: z, view = '' } = zones.shift();
          try {
            let c = '';
            for (;;) {
              const p = await request('GET', zonePath(z, '/records?limit=1000' + (c ? '&cursor=' + encodeURIComponent(c) : ''), view));
              for (const r of p.rrsets) {
                if (r.name.toLowerCase().includes(q) || r.type.toLowerCase() === q || r.values.some((v) => v.toLowerCase().includes(q))) hits.push({ zone: z, view, ...r });
              }
              if (!p.nextCursor) break;
              c = p.nextCursor;
            }
          } catch (e) { if (e.status !== 403 && e.status !== 404) hits.push({ zone: z, view, error: e }); }
          done++;
          replace(this.progress, `${done} zones searched, ${hits.length} matches`);
        }
      };
      await Promise.all([next(), next(), next(), next()]);
      if (run !== this.runs) return;
      this.show(hits);
    } catch (e) {
      replace(this.results, errorBox(e));
    }
  }

  show(hits) {
    const rows = hits.filter((x) => !x.error);
    replace(this.results,
      hits.filter((x) => x.error).map((x) => h('div', {}, x.zone + (x.view ? ` (${x.view})` : '') + ': ', errorBox(x.error))),
      rows.length ? h('table', {}, h('caption', { class: 'sr' }, `${rows.length} matching RRsets`),
        h('thead', {}, h('tr', {}, ['Zone', 'Name', 'Type', 'TTL', 'Data'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows.map((r) => h('tr', {},
          h('td', {}, h('a', { href: zoneHref(r.zone, r.view) }, r.zone, r.view ? h('span', { class: 'view' }, ` (${r.view})`) : null)), h('td', {}, relName(r.name, r.zone)), h('td', {}, r.type),
          h('td', {}, String(r.ttl)), h('td', { class: 'data' }, r.values.map((v) => h('div', {}, v)))))))
        : h('p', {}, 'No record matches.'));
  }
}
customElements.define('za-search', Search);
