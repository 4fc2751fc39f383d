// A zone: its RRsets, filtered as you type; record edits staged into one
// change set, reviewed as a diff (before and after per RRset) and applied
// as one atomic PATCH with If-Match on the serial the edits were made
// against; a 412 shows what changed meanwhile and lets the person apply
// on top or discard. Its history, with revert as a staged inverse change
// set, and the event stream keeping both live.

import { h, replace, errorBox, field } from './dom.js';
import { request, session, zonePath } from './api.js';
import { subscribe } from './events.js';
import { absName, batch, canon, changedBetween, diff, fromText, inverse, key, relName, snapshot, toText } from './rrsets.js';
import { entryView, readLast, rrsetDiff } from './changes.js';

// maxRows is how many RRsets the table shows at once.
const maxRows = 100;

const types = ['A', 'AAAA', 'CAA', 'CNAME', 'DNAME', 'DS', 'HTTPS', 'MX', 'NAPTR', 'NS', 'PTR', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'URI'];

class Zone extends HTMLElement {
  connectedCallback() {
    this.staged = new Map();
    this.base = new Map();
    this.serial = null;
    this.head = h('div', { class: 'zonehead' });
    this.notice = h('div', { class: 'notice', 'aria-live': 'polite' });
    this.filter = h('input', { type: 'search', placeholder: 'name, type or value', oninput: () => this.renderRecords() });
    this.editor = h('div');
    this.pending = h('section', { class: 'pending', 'aria-labelledby': 'pending-title', hidden: true });
    this.records = h('div', { class: 'records' });
    this.changes = h('ol', { class: 'changes', reversed: true });
    this.recordsTab = h('div', { role: 'tabpanel', id: 'tab-records', 'aria-labelledby': 'tabbtn-records' },
      h('div', { class: 'toolbar' }, field('Filter records', this.filter),
        session.can('records') ? h('button', { type: 'button', class: 'primary', onclick: () => this.edit(null) }, 'Add record') : null,
        session.can('records') ? h('button', { type: 'button', class: 'astext', onclick: () => this.editText() }, 'Edit as text') : null),
      this.editor, this.pending, this.records);
    this.historyTab = h('div', { role: 'tabpanel', id: 'tab-history', 'aria-labelledby': 'tabbtn-history' },
      h('p', { class: 'hint' }, 'Newest first. Reverting stages the inverse change; you review it before it is applied.'), this.changes);
    const tab = (id, label) => h('a', { role: 'tab', id: 'tabbtn-' + id, href: `#/zones/${encodeURIComponent(this.zone)}/${id}`, 'aria-controls': 'tab-' + id, 'aria-selected': String(this.tab === id) }, label);
    replace(this, h('p', { class: 'crumbs' }, h('a', { href: '#/zones' }, 'Zones'), ' / '), h('h1', {}, this.zone), this.head, this.notice,
      h('div', { role: 'tablist', 'aria-label': 'Zone' }, tab('records', 'Records'), tab('history', 'History')),
      this.recordsTab, this.historyTab);
    this.setTab(this.tab);
    this.load();
  }

  disconnectedCallback() { if (this.sub) this.sub.close(); }

  // setTab shows the records or the history.
  setTab(tab) {
    this.tab = tab;
    this.recordsTab.hidden = tab !== 'records';
    this.historyTab.hidden = tab !== 'history';
    for (const t of this.querySelectorAll('[role=tab]')) t.setAttribute('aria-selected', String(t.id === 'tabbtn-' + tab));
  }

  async load() {
    try {
      this.info = await request('GET', zonePath(this.zone));
      this.renderHead();
      await this.loadRecords();
    } catch (e) {
      replace(this.records, errorBox(e));
      return;
    }
    let lastId = '';
    try {
      const last = await readLast(request, zonePath(this.zone, '/changes'), 50);
      replace(this.changes, last.reverse().map((c) => this.entry(c)));
      lastId = last.length ? last[0].id : '';
    } catch (e) {
      replace(this.changes, h('li', {}, errorBox(e)));
    }
    this.sub = subscribe('zone=' + encodeURIComponent(this.zone), lastId, (c) => this.onChange(c), (s) => { this.dataset.stream = s; });
  }

  renderHead() {
    const i = this.info;
    const caps = i.capabilities || {};
    const canZones = session.can('zones');
    const cmd = (name, label, allowed, reason) => canZones ? h('button', { type: 'button', disabled: !allowed, title: allowed ? '' : reason || '',
      onclick: () => this.command(name) }, label) : null;
    replace(this.head,
      h('dl', { class: 'facts' },
        [['type', i.zoneType], ['serial', this.serial ?? i.serial], ['state', i.state], ['dynamic', i.dynamic ? 'yes' : 'no'], ['signed', i.secure ? 'yes' : 'no']]
          .map(([k, v]) => [h('dt', {}, k), h('dd', { 'data-fact': k }, String(v ?? ''))])),
      canZones ? h('div', { class: 'commands', role: 'group', 'aria-label': 'Zone commands' },
        cmd('freeze', 'Freeze', i.state !== 'frozen' && i.dynamic, 'not dynamic or already frozen'),
        cmd('thaw', 'Thaw', i.state === 'frozen', 'not frozen'),
        cmd('reload', 'Reload', !i.dynamic || i.state === 'frozen', 'a dynamic zone reloads only when frozen'),
        cmd('notify', 'Notify', true),
        cmd('retransfer', 'Retransfer', caps.retransfer ? caps.retransfer.allowed : false, caps.retransfer && caps.retransfer.reason)) : null,
      session.restrictsRecords() ? null : h('div', { class: 'exportbar' }, h('button', { type: 'button', class: 'export', onclick: () => this.exportFile() }, 'Export zone file')),
      caps.records && !caps.records.allowed && session.can('records') ? h('p', { class: 'hint' }, 'Records cannot be changed: ' + caps.records.reason) : null);
  }

  // exportFile downloads the zone file (GET /export) under the zone's
  // name; the token goes in the header, so the file is fetched, then
  // saved from memory.
  async exportFile() {
    try {
      const text = await request('GET', zonePath(this.zone, '/export'), { text: true, headers: { Accept: 'text/dns' } });
      const url = URL.createObjectURL(new Blob([text], { type: 'text/dns' }));
      const a = h('a', { href: url, download: canon(this.zone) + '.zone', class: 'sr' }, 'download');
      this.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) { replace(this.notice, errorBox(e)); }
  }

  async command(name) {
    replace(this.notice, `${name}…`);
    try {
      const r = await request('POST', zonePath(this.zone, '/' + name));
      replace(this.notice, h('p', { class: 'ok' }, r.message || `${name}: done`));
      this.info = await request('GET', zonePath(this.zone));
      this.renderHead();
    } catch (e) { replace(this.notice, errorBox(e)); }
  }

  // loadRecords reads every RRset (1,000 a page) and the serial of the
  // snapshot; it returns the snapshot.
  async readRecords() {
    let cursor = '';
    let rrsets = [];
    let serial = null;
    for (;;) {
      const p = await request('GET', zonePath(this.zone, '/records?limit=1000' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')));
      if (serial === null) serial = p.serial;
      rrsets = rrsets.concat(p.rrsets);
      if (!p.nextCursor) break;
      cursor = p.nextCursor;
    }
    return { serial, snap: snapshot(rrsets) };
  }

  async loadRecords() {
    const { serial, snap } = await this.readRecords();
    this.serial = serial;
    this.base = snap;
    this.renderHead();
    this.renderRecords();
    this.renderPending();
  }

  renderRecords() {
    const q = this.filter.value.trim().toLowerCase();
    // Each RRset's searchable text is built once per snapshot.
    if (this.searchOf !== this.base) {
      this.searchOf = this.base;
      this.search = new Map([...this.base].map(([k, r]) => [k, `${relName(r.name, this.zone)} ${r.name}\n${r.type.toLowerCase()}\n${r.values.join('\n').toLowerCase()}`]));
    }
    const rows = [];
    for (const [k, r] of this.base) {
      if (!q || this.search.get(k).includes(q)) rows.push(r);
    }
    for (const [k, s] of this.staged) if (!this.base.has(k) && s.values.length) rows.push({ ...s, stagedNew: true });
    const canEdit = session.can('records');
    // A large zone shows its first rows; the filter finds the others.
    const total = rows.length;
    rows.length = Math.min(rows.length, maxRows);
    this.selected = this.selected || new Set();
    const ttl = h('input', { type: 'number', min: '0', name: 'bulkttl', value: '300', class: 'ttl' });
    const bulk = canEdit ? h('div', { class: 'bulk', role: 'group', 'aria-label': 'Selected RRsets' },
      h('span', { class: 'count', 'aria-live': 'polite' }, `${this.selected.size} selected`),
      h('button', { type: 'button', class: 'small danger', onclick: () => this.bulk((r) => ({ ...r, values: [] })) }, 'Delete selected'),
      field('TTL', ttl),
      h('button', { type: 'button', class: 'small', onclick: () => this.bulk((r) => ({ ...r, ttl: Number(ttl.value) })) }, 'Set TTL on selected')) : null;
    replace(this.records, total > maxRows ? h('p', { class: 'hint', role: 'status' }, `Showing ${maxRows} of ${total} RRsets: type in the filter to find the others.`) : null,
      bulk,
      h('table', {},
      h('caption', { class: 'sr' }, `${total} RRsets of ${this.zone}`),
      h('thead', {}, h('tr', {}, canEdit ? h('th', { scope: 'col' }, h('span', { class: 'sr' }, 'Select')) : null, ['Name', 'Type', 'TTL', 'Data'].map((c) => h('th', { scope: 'col' }, c)),
        canEdit ? h('th', { scope: 'col' }, h('span', { class: 'sr' }, 'Actions')) : null)),
      h('tbody', {}, rows.map((r) => {
        const k = key(r.name, r.type);
        const st = this.staged.get(k);
        const cls = st ? (st.values.length ? 'staged-change' : 'staged-delete') : '';
        const label = `${relName(r.name, this.zone)} ${r.type}`;
        const editable = canEdit && r.type !== 'SOA';
        return h('tr', { class: cls, 'data-key': k },
          canEdit ? h('td', {}, editable ? h('input', { type: 'checkbox', 'aria-label': 'Select ' + label, checked: this.selected.has(k),
            onchange: (e) => { if (e.target.checked) this.selected.add(k); else this.selected.delete(k); this.querySelector('.bulk .count').textContent = `${this.selected.size} selected`; } }) : null) : null,
          h('td', {}, relName(r.name, this.zone)), h('td', {}, r.type), h('td', {}, String((st && st.values.length ? st : r).ttl)),
          h('td', { class: 'data' }, (st && st.values.length ? st : r).values.map((v) => h('div', {}, v))),
          canEdit ? h('td', { class: 'rowactions' }, editable ? [
            h('button', { type: 'button', class: 'small', 'aria-label': 'Edit ' + label, onclick: () => this.edit(r) }, 'Edit'),
            h('button', { type: 'button', class: 'small danger', 'aria-label': 'Delete ' + label, onclick: () => this.stage({ name: r.name, type: r.type, ttl: r.ttl, values: [] }) }, 'Delete'),
          ] : null) : null);
      }))));
  }

  // edit opens the record editor for an RRset (null: a new one).
  edit(rr) {
    const cur = rr ? (this.staged.get(key(rr.name, rr.type)) || rr) : null;
    const name = h('input', { name: 'name', value: rr ? relName(rr.name, this.zone) : '', placeholder: '@ or www', required: true });
    const type = h('input', { name: 'type', value: rr ? rr.type : 'A', list: 'rrtypes', required: true, autocapitalize: 'characters' });
    const ttl = h('input', { name: 'ttl', type: 'number', min: '0', value: String(cur && cur.values.length ? cur.ttl : 3600) });
    const values = h('textarea', { name: 'values', rows: '3', required: true, value: cur ? cur.values.join('\n') : '' });
    const form = h('form', { class: 'panel editor', 'aria-labelledby': 'editor-title', onsubmit: (e) => {
      e.preventDefault();
      const n = absName(name.value, this.zone);
      const t = type.value.trim().toUpperCase();
      if (rr && key(n, t) !== key(rr.name, rr.type)) this.stage({ name: rr.name, type: rr.type, ttl: rr.ttl, values: [] }, false);
      this.stage({ name: n, type: t, ttl: Number(ttl.value || 3600), values: values.value.split('\n').map((v) => v.trim()).filter(Boolean) });
      replace(this.editor);
    } },
    h('h2', { id: 'editor-title' }, rr ? `Edit ${relName(rr.name, this.zone)} ${rr.type}` : 'Add a record'),
    h('div', { class: 'row' }, field('Name', name, 'Relative to the zone, @ for the apex'), field('Type', type), field('TTL', ttl)),
    field('Values', values, 'One record per line, in zone-file form (MX: "10 mail.example.com.")'),
    h('datalist', { id: 'rrtypes' }, types.map((t) => h('option', { value: t }))),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Stage change'),
      h('button', { type: 'button', onclick: () => replace(this.editor) }, 'Cancel')));
    replace(this.editor, form);
    (rr ? values : name).focus();
  }

  // bulk stages a change of every selected RRset (as it is, or as
  // staged) and clears the selection.
  bulk(change) {
    for (const k of this.selected) {
      const r = this.staged.get(k) || this.base.get(k);
      if (r && r.type !== 'SOA') this.stage(change(r), false);
    }
    this.selected.clear();
    this.renderRecords();
    this.renderPending();
  }

  // editText opens the zone's records as zone-file text; what the text
  // changes is staged like any edit.
  editText() {
    const area = h('textarea', { name: 'zonetext', rows: '16', spellcheck: 'false', value: toText(this.base, this.zone) });
    const errs = h('div', { 'aria-live': 'polite' });
    const form = h('form', { class: 'panel editor text', 'aria-labelledby': 'text-title', onsubmit: (e) => {
      e.preventDefault();
      const { staged, errors } = fromText(area.value, this.base, this.zone);
      if (errors.length) { replace(errs, h('div', { class: 'error', role: 'alert' }, h('ul', {}, errors.map((x) => h('li', {}, x))))); return; }
      for (const rr of staged.values()) this.stage(rr, false);
      this.renderRecords();
      this.renderPending();
      replace(this.editor);
    } },
    h('h2', { id: 'text-title' }, `Edit ${this.zone} as text`),
    h('p', { class: 'hint', id: 'text-hint' }, 'One record per line: name (relative, @ for the apex), TTL, type, data. Lines removed delete their records; the SOA is left out (named keeps it). The differences are staged for review.'),
    field('Zone records', area), errs,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Stage differences'),
      h('button', { type: 'button', onclick: () => replace(this.editor) }, 'Cancel')));
    area.setAttribute('aria-describedby', 'text-hint');
    replace(this.editor, form);
    area.focus();
  }

  // stage adds an RRset's new state to the change set.
  stage(rr, render = true) {
    const k = key(rr.name, rr.type);
    this.staged.set(k, { name: canon(rr.name), type: rr.type.toUpperCase(), ttl: rr.ttl, values: rr.values });
    if (render) { this.renderRecords(); this.renderPending(); }
  }

  renderPending(problems = null) {
    const d = diff(this.base, this.staged);
    this.pending.hidden = d.length === 0 && !problems;
    replace(this.pending,
      h('h2', { id: 'pending-title' }, `Pending changes (${d.length})`),
      h('p', { class: 'hint' }, `Applied together as one atomic change, only if the zone is still at serial ${this.serial}.`),
      problems,
      h('div', { class: 'diffs' }, d.map((x, i) => h('div', { class: 'staged-item', 'data-index': i }, rrsetDiff(x, this.zone),
        h('button', { type: 'button', class: 'small', 'aria-label': `Undo the change of ${relName(x.name, this.zone)} ${x.type}`, onclick: () => { this.staged.delete(x.key); this.renderRecords(); this.renderPending(); } }, 'Undo'),
        h('div', { class: 'fielderr', 'aria-live': 'polite' })))),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'primary', disabled: d.length === 0, onclick: () => this.apply() }, 'Apply changes'),
        h('button', { type: 'button', onclick: () => { this.staged.clear(); this.renderRecords(); this.renderPending(); } }, 'Discard all')),
      h('div', { class: 'applymsg', 'aria-live': 'polite' }));
  }

  async apply() {
    const { body, owner } = batch(this.base, this.staged);
    const n = diff(this.base, this.staged).length;
    if (!body.changes.length) return;
    const msg = this.pending.querySelector('.applymsg');
    replace(msg, 'Applying…');
    try {
      const r = await request('PATCH', zonePath(this.zone, '/records'), { body, headers: { 'If-Match': `"${this.serial}"` } });
      this.staged.clear();
      replace(this.notice, h('p', { class: 'ok' }, `Applied ${n} change${n > 1 ? 's' : ''}: serial ${r.oldSerial} → ${r.serial}.`));
      await this.loadRecords();
    } catch (e) {
      if (e.status === 412) return this.conflict();
      replace(msg, errorBox(e));
      for (const v of (e.body && e.body.violations) || []) {
        const m = /^\/changes\/(\d+)/.exec(v.pointer || '');
        const item = m && this.pending.querySelector(`.staged-item[data-index="${owner[Number(m[1])]}"] .fielderr`);
        if (item) item.append(h('p', { class: 'error' }, v.message));
      }
    }
  }

  // conflict shows what changed in the zone since the edits' serial and
  // offers to apply them on top of it or to discard them.
  async conflict() {
    let now;
    try { now = await this.readRecords(); } catch (e) { replace(this.notice, errorBox(e)); return; }
    // The SOA moves with every change: what matters is the rest.
    const moved = changedBetween(this.base, now.snap).filter((d) => d.type !== 'SOA');
    const box = h('div', { class: 'conflict', role: 'alert' },
      h('h3', {}, `Someone changed ${this.zone} meanwhile (serial ${this.serial} → ${now.serial})`),
      h('p', {}, 'Nothing of yours was applied. What changed:'),
      moved.length ? moved.map((d) => rrsetDiff(d, this.zone)) : h('p', {}, 'Only the serial.'),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => { this.rebase(now); this.apply(); } }, 'Re-apply my changes on top'),
        h('button', { type: 'button', onclick: () => { this.staged.clear(); this.rebase(now); } }, 'Discard my changes')));
    this.renderPending(box);
  }

  rebase(now) {
    this.base = now.snap;
    this.serial = now.serial;
    this.renderHead();
    this.renderRecords();
    this.renderPending();
  }

  entry(c) {
    const canRevert = session.can('records') && c.type === 'records.changed' && ((c.added && c.added.length) || (c.removed && c.removed.length));
    return entryView(c, { showZone: false, actions: canRevert ? h('button', { type: 'button', class: 'small', 'aria-label': `Revert change ${c.id}`, onclick: () => this.revert(c) }, 'Revert') : null });
  }

  // revert stages the inverse of a change, on top of the zone as it is.
  async revert(c) {
    try {
      if (this.staged.size === 0) await this.loadRecords();
    } catch (e) { replace(this.notice, errorBox(e)); return; }
    const inv = inverse(c, this.base);
    if (inv.problems.length) {
      replace(this.notice, h('div', { class: 'error', role: 'alert' }, h('strong', {}, `Change ${c.id} cannot be reverted: `), inv.problems.join('; ')));
      return;
    }
    for (const rr of inv.staged.values()) this.stage(rr, false);
    this.renderRecords();
    this.renderPending();
    replace(this.notice, h('p', {}, `The inverse of change ${c.id} is staged below: review it, then apply.`));
    location.hash = `#/zones/${encodeURIComponent(this.zone)}/records`;
  }

  onChange(c) {
    if (c.zone && canon(c.zone) !== canon(this.zone)) return;
    if (this.changes.querySelector(`[data-id="${c.id}"]`)) return;
    this.changes.prepend(this.entry(c));
    if (c.type === 'zone.deleted') { replace(this.notice, h('p', { class: 'error' }, 'This zone was deleted.')); return; }
    if (this.staged.size === 0) {
      this.loadRecords().catch((e) => replace(this.notice, errorBox(e)));
    } else if (c.serial_after && c.serial_after !== this.serial) {
      replace(this.notice, h('p', { class: 'warn' }, `The zone changed meanwhile (serial ${c.serial_after}); your pending changes were made at ${this.serial}: applying them will show what changed.`));
    }
  }
}
customElements.define('za-zone', Zone);
