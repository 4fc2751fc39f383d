// The zones: every zone the token may read, searched as you type,
// filtered and paged in the browser (the list is read once, 1,000 zones a
// request); create; delete with a typed confirmation.

import { h, replace, errorBox, field } from './dom.js';
import { request, session, zonePath } from './api.js';

const pageSize = 50;

class Zones extends HTMLElement {
  connectedCallback() {
    this.items = [];
    this.page = 0;
    this.q = h('input', { type: 'search', placeholder: 'example.com', oninput: () => { this.page = 0; this.render(); } });
    this.type = h('select', { onchange: () => { this.page = 0; this.render(); } },
      h('option', { value: '' }, 'any type'), h('option', { value: 'primary' }, 'primary'), h('option', { value: 'secondary' }, 'secondary'));
    this.every = h('input', { type: 'checkbox', onchange: () => this.load() });
    this.managed = h('select', { onchange: () => { this.page = 0; this.render(); } },
      h('option', { value: '' }, 'managed or not'), h('option', { value: 'true' }, 'managed'), h('option', { value: 'false' }, 'not managed'));
    this.view = h('select', { onchange: () => { this.page = 0; this.render(); } }, h('option', { value: '' }, 'any view'));
    this.source = h('select', { onchange: () => { this.page = 0; this.render(); } },
      h('option', { value: '' }, 'any source'), ['api', 'nzd', 'named.conf'].map((s) => h('option', { value: s }, s)));
    this.msg = h('div', { 'aria-live': 'polite', class: 'msg' });
    this.adoptSel = new Set();
    this.grant = h('input', { type: 'checkbox', checked: true });
    this.adoptBar = h('div', { class: 'adoptbar', role: 'group', 'aria-label': 'Adopt zones' });
    this.progress = h('div', { class: 'progress', 'aria-live': 'polite' });
    this.list = h('div', { class: 'zonelist' });
    this.pager = h('nav', { 'aria-label': 'Pages', class: 'pager' });
    this.createBox = h('div');
    replace(this,
      h('div', { class: 'titlebar' }, h('h1', {}, 'Zones'),
        session.can('zones') ? h('button', { type: 'button', class: 'primary', onclick: () => this.showCreate() }, 'Create zone') : null),
      this.createBox,
      h('div', { class: 'filters', role: 'search' },
        field('Search zones', this.q),
        field('Type', this.type),
        h('div', { class: 'field check' }, h('label', {}, this.every, ' every zone named serves')),
        h('div', { class: 'allonly' }, field('Managed', this.managed), field('View', this.view), field('Source', this.source))),
      this.msg, this.adoptBar, this.progress, this.list, this.pager);
    this.load();
  }

  async load() {
    replace(this.msg, 'Loading zones…');
    this.items = [];
    this.adoptSel.clear();
    const all = this.every.checked;
    this.classList.toggle('all', all);
    let cursor = '';
    try {
      for (;;) {
        const l = await request('GET', `/zones?limit=1000${all ? '&all=true' : ''}${cursor ? '&cursor=' + encodeURIComponent(cursor) : ''}`);
        this.items = this.items.concat(l.items || (l.zones || []).map((name) => ({ name })));
        replace(this.msg, `${this.items.length} zones loaded…`);
        if (!l.nextCursor) break;
        cursor = l.nextCursor;
      }
      const views = [...new Set(this.items.map((z) => z.view).filter(Boolean))].sort();
      replace(this.view, h('option', { value: '' }, 'any view'), views.map((v) => h('option', { value: v }, v)));
      replace(this.msg);
    } catch (e) {
      replace(this.msg, errorBox(e));
    }
    this.render();
  }

  filtered() {
    const q = this.q.value.trim().toLowerCase().replace(/\.$/, '');
    const t = this.type.value;
    const all = this.every.checked;
    return this.items.filter((z) => (!q || z.name.includes(q)) && (!t || (z.zoneType || z.type) === t) &&
      (!all || ((!this.managed.value || String(!!z.managed) === this.managed.value) && (!this.view.value || z.view === this.view.value) &&
        (!this.source.value || z.source === this.source.value))));
  }

  render() {
    const rows = this.filtered();
    const pages = Math.max(1, Math.ceil(rows.length / pageSize));
    this.page = Math.min(this.page, pages - 1);
    const shown = rows.slice(this.page * pageSize, (this.page + 1) * pageSize);
    const all = this.every.checked;
    replace(this.list, rows.length === 0 ? h('p', {}, this.items.length ? 'No zone matches.' : 'No zones yet.') :
      h('table', {},
        h('caption', { class: 'sr' }, `Zones ${this.page * pageSize + 1} to ${this.page * pageSize + shown.length} of ${rows.length}`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Zone'), h('th', { scope: 'col' }, 'Type'),
          all ? [h('th', { scope: 'col' }, 'Managed'), h('th', { scope: 'col' }, 'View'), h('th', { scope: 'col' }, 'Source')] : null,
          h('th', { scope: 'col' }, h('span', { class: 'sr' }, 'Actions')))),
        h('tbody', {}, shown.map((z) => h('tr', {},
          h('td', {}, h('a', { href: '#/zones/' + encodeURIComponent(z.name) + (z.view ? '' : '') }, z.name)),
          h('td', {}, z.zoneType || z.type || ''),
          all ? [h('td', {}, z.managed ? 'yes' : 'no'), h('td', {}, z.view || ''), h('td', {}, z.source || '')] : null,
          h('td', {}, session.can('zones') && (z.managed !== false) ? h('button', { type: 'button', class: 'danger small', 'aria-label': 'Delete ' + z.name, onclick: () => this.confirmDelete(z.name) }, 'Delete') : null,
            this.adoptable(z) ? h('label', { class: 'adoptpick' }, h('input', { type: 'checkbox', checked: this.adoptSel.has(z), onchange: (e) => { if (e.target.checked) this.adoptSel.add(z); else this.adoptSel.delete(z); this.renderAdoptBar(); } }), h('span', { class: 'sr' }, 'Select ' + z.name + ' for adoption'), ' adopt') : null))))));
    this.renderAdoptBar();
    replace(this.pager, pages > 1 ? [
      h('button', { type: 'button', disabled: this.page === 0, onclick: () => { this.page--; this.render(); } }, 'Previous'),
      h('span', {}, ` Page ${this.page + 1} of ${pages} `),
      h('button', { type: 'button', disabled: this.page >= pages - 1, onclick: () => { this.page++; this.render(); } }, 'Next'),
    ] : null);
  }

  // adoptable tells whether the zone can be brought under management:
  // one of the new-zone database the API does not manage.
  adoptable(z) { return session.can('zones') && this.every.checked && z.managed === false && z.source === 'nzd'; }

  renderAdoptBar() {
    const n = this.adoptSel.size;
    replace(this.adoptBar, this.every.checked && session.can('zones') ? [
      h('button', { type: 'button', class: 'primary', disabled: n === 0, onclick: () => this.adopt() }, `Adopt selected (${n})`),
      h('label', {}, this.grant, ' and let the API change their records (allow-update for its key)'),
    ] : null);
  }

  // adopt brings the selected zones under management one by one,
  // showing the progress and each answer.
  async adopt() {
    const zones = [...this.adoptSel];
    const results = h('ul', { class: 'results' });
    const status = h('p', { role: 'status' });
    replace(this.progress, h('progress', { max: String(zones.length), value: '0', 'aria-label': 'Adopting zones' }), status, results);
    const bar = this.progress.querySelector('progress');
    let ok = 0;
    for (const [i, z] of zones.entries()) {
      replace(status, `Adopting ${i + 1} of ${zones.length}: ${z.name}…`);
      try {
        const q = new URLSearchParams();
        if (this.grant.checked) q.set('grantUpdateKey', 'true');
        if (z.view) q.set('view', z.view);
        await request('POST', zonePath(z.name, '/adopt?' + q));
        ok++;
        results.append(h('li', { class: 'ok' }, `${z.name}: adopted`));
      } catch (e) {
        results.append(h('li', {}, `${z.name}: `, errorBox(e)));
      }
      bar.value = i + 1;
    }
    replace(status, `${ok} of ${zones.length} zones adopted.`);
    this.adoptSel.clear();
    await this.load();
  }

  showCreate() {
    const name = h('input', { name: 'zoneName', required: true, placeholder: 'example.com' });
    const ns = h('input', { name: 'ns', required: true, placeholder: 'ns1.example.com.' });
    const nsip = h('input', { name: 'nsip', placeholder: '192.0.2.53' });
    const email = h('input', { name: 'email', required: true, placeholder: 'hostmaster.example.com.' });
    const ttl = h('input', { name: 'ttl', type: 'number', min: '0', value: '3600' });
    const policy = h('input', { name: 'dnssec', placeholder: 'none' });
    const out = h('div', { 'aria-live': 'polite' });
    const form = h('form', { class: 'panel', 'aria-labelledby': 'create-title', onsubmit: async (e) => {
      e.preventDefault();
      const z = name.value.trim().replace(/\.$/, '');
      const body = { zoneName: z, zoneType: 'primary', zoneConfig: { ttl: Number(ttl.value || 3600),
        soa: { primaryNs: ns.value.trim(), adminEmail: email.value.trim() }, nameServers: [ns.value.trim()] } };
      if (nsip.value.trim()) body.zoneConfig.nameServerIps = { [ns.value.trim()]: nsip.value.trim() };
      if (policy.value.trim()) body.zoneConfig.dnssecPolicy = policy.value.trim();
      replace(out, 'Creating…');
      try {
        await request('POST', '/zones', { body });
        location.hash = '#/zones/' + encodeURIComponent(z);
      } catch (err) { replace(out, errorBox(err)); }
    } },
    h('h2', { id: 'create-title' }, 'Create a zone'),
    field('Zone name', name), field('Primary name server', ns, 'An absolute name, e.g. ns1.example.com.'),
    field('Its address (glue)', nsip), field('Administrator mailbox', email), field('Default TTL', ttl), field('DNSSEC policy', policy, 'Empty: unsigned'),
    out,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create'),
      h('button', { type: 'button', onclick: () => replace(this.createBox) }, 'Cancel')));
    replace(this.createBox, form);
    name.focus();
  }

  confirmDelete(zone) {
    const typed = h('input', { autocomplete: 'off' });
    const out = h('div', { 'aria-live': 'polite' });
    const go = h('button', { type: 'submit', class: 'danger', disabled: true }, 'Delete zone');
    typed.addEventListener('input', () => { go.disabled = typed.value !== zone; });
    const dlg = h('dialog', { 'aria-labelledby': 'del-title', class: 'confirm' },
      h('form', { onsubmit: async (e) => {
        e.preventDefault();
        if (typed.value !== zone) return;
        replace(out, 'Deleting…');
        try {
          await request('DELETE', zonePath(zone));
          dlg.close();
          dlg.remove();
          this.load();
        } catch (err) { replace(out, errorBox(err)); }
      } },
      h('h2', { id: 'del-title' }, 'Delete ' + zone + '?'),
      h('p', {}, 'named stops serving the zone and its file, journal and keys are removed. This cannot be undone.'),
      field(`Type ${zone} to confirm`, typed), out,
      h('div', { class: 'actions' }, go, h('button', { type: 'button', onclick: () => { dlg.close(); dlg.remove(); } }, 'Cancel'))));
    this.append(dlg);
    dlg.showModal();
    typed.focus();
  }
}
customElements.define('za-zones', Zones);
