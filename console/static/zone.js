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

// pageRows is how many RRsets the table shows at first, and how many
// more each "Show more rows" (or scrolling to the table's end) adds.
const pageRows = 50;

// draftKey is where the pending changes wait in this tab's
// sessionStorage while the sign-in with an OIDC provider leaves the page.
const draftKey = 'zoneapi.console.draft';

const types = ['A', 'AAAA', 'CAA', 'CNAME', 'DNAME', 'DS', 'HTTPS', 'MX', 'NAPTR', 'NS', 'PTR', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'URI'];

class Zone extends HTMLElement {
  connectedCallback() {
    this.staged = new Map();
    this.base = new Map();
    this.serial = null;
    this.head = h('div', { class: 'zonehead' });
    this.notice = h('div', { class: 'notice', 'aria-live': 'polite' });
    this.filter = h('input', { type: 'search', placeholder: 'name, type or value', oninput: () => { this.shown = pageRows; this.renderRows(); } });
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
    this.settings = h('div');
    this.settingsTab = h('div', { role: 'tabpanel', id: 'tab-settings', 'aria-labelledby': 'tabbtn-settings' }, this.settings);
    const tab = (id, label) => h('a', { role: 'tab', id: 'tabbtn-' + id, href: this.href(id), 'aria-controls': 'tab-' + id, 'aria-selected': String(this.tab === id) }, label);
    replace(this, h('p', { class: 'crumbs' }, h('a', { href: '#/zones' }, 'Zones'), ' / '), h('h1', {}, this.zone, this.view ? h('span', { class: 'view' }, ` in view ${this.view}`) : null), this.head, this.notice,
      h('div', { role: 'tablist', 'aria-label': 'Zone' }, tab('records', 'Records'), tab('history', 'History'), tab('settings', 'Transfer and notify')),
      this.recordsTab, this.historyTab, this.settingsTab);
    this.setTab(this.tab);
    this.onLeaving = () => this.keepDraft();
    window.addEventListener('za:leaving', this.onLeaving);
    this.load();
  }

  disconnectedCallback() {
    window.removeEventListener('za:leaving', this.onLeaving);
    if (this.sub) this.sub.close();
    if (this.moreSeen) this.moreSeen.disconnect();
    this.loadGen = -1;
  }

  // setTab shows the records or the history.
  setTab(tab) {
    this.tab = tab;
    this.recordsTab.hidden = tab !== 'records';
    this.historyTab.hidden = tab !== 'history';
    this.settingsTab.hidden = tab !== 'settings';
    for (const t of this.querySelectorAll('[role=tab]')) t.setAttribute('aria-selected', String(t.id === 'tabbtn-' + tab));
  }

  async load() {
    try {
      this.info = await request('GET', zonePath(this.zone, '', this.view));
      this.renderHead();
      this.renderSettings();
      await this.loadRecords();
    } catch (e) {
      replace(this.records, errorBox(e));
      return;
    }
    let lastId = '';
    try {
      const last = await readLast(request, zonePath(this.zone, '/changes', this.view), 50);
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

  // renderSettings shows the zone's transfer and notify lists (named's
  // showzone, through GET /zones/{name}), editable where the token has
  // the zones action and the zone's modify capability allows it; the
  // reason is shown where it does not. Saved with PATCH /zones/{name}.
  renderSettings(message) {
    const c = (this.info && this.info.config) || {};
    const mod = (this.info && this.info.capabilities && this.info.capabilities.modify) || { allowed: false };
    const canEdit = session.can('zones') && mod.allowed;
    const list = (name, values) => h('textarea', { name, rows: '3', spellcheck: 'false', disabled: !canEdit, value: (values || []).join('\n') });
    const notify = list('alsoNotify', c.alsoNotify);
    const transfer = list('allowTransfer', c.allowTransfer);
    const lines = (t) => t.value.split(/[\n,;]+/).map((v) => v.trim()).filter(Boolean);
    const save = async (e) => {
      e.preventDefault();
      replace(this.settingsMsg, 'Saving…');
      try {
        const r = await request('PATCH', zonePath(this.zone, '', this.view), { body: { alsoNotify: lines(notify), allowTransfer: lines(transfer) } });
        this.info = await request('GET', zonePath(this.zone, '', this.view));
        this.renderSettings(h('p', { class: 'ok' }, r.message || 'Saved.'));
      } catch (err) { replace(this.settingsMsg, errorBox(err)); }
    };
    this.settingsMsg = h('div', { class: 'settingsmsg', 'aria-live': 'polite' }, message || null);
    const why = !session.can('zones') ? 'Your token may not change zones (the zones action).' : !mod.allowed ? 'These settings cannot be changed here: ' + (mod.reason || 'the API does not allow it') : null;
    replace(this.settings,
      h('form', { class: 'settingsform', onsubmit: save },
        h('h2', {}, 'Transfer and notify'),
        why ? h('p', { class: 'hint reason' }, why) : null,
        field('Also notify', notify, 'Servers sent NOTIFY besides the NS targets, one a line: ip, ip:port or [v6]:port, optionally followed by "key NAME". Empty: none.'),
        field('Allow transfer', transfer, 'Who may transfer the zone (AXFR, IXFR), one a line: ip, ip/len, !ip, "key NAME", any, none. Key grants the zone has are kept unless the list names keys.'),
        canEdit ? h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save settings')) : null,
        c.statement ? h('details', {}, h('summary', {}, 'The zone statement named shows'), h('pre', { class: 'statement' }, c.statement)) : null),
      this.settingsMsg);
  }

  // exportFile downloads the zone file (GET /export) under the zone's
  // name; the token goes in the header, so the file is fetched, then
  // saved from memory.
  async exportFile() {
    try {
      const text = await request('GET', zonePath(this.zone, '/export', this.view), { text: true, headers: { Accept: 'text/dns' } });
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
      const r = await request('POST', zonePath(this.zone, '/' + name, this.view));
      replace(this.notice, h('p', { class: 'ok' }, r.message || `${name}: done`));
      this.info = await request('GET', zonePath(this.zone, '', this.view));
      this.renderHead();
    } catch (e) { replace(this.notice, errorBox(e)); }
  }

  // readRecords reads every RRset (1,000 a page) and the serial of the
  // snapshot; it returns the snapshot. onPage, if given, is called with
  // the snapshot read so far after each page. Each page is asked for as
  // soon as the cursor is known, before the last one is taken in.
  async readRecords(onPage) {
    const page = (cursor) => request('GET', zonePath(this.zone, '/records?limit=1000' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''), this.view));
    let next = page('');
    let serial = null;
    const snap = new Map();
    for (;;) {
      const p = await next;
      if (serial === null) serial = p.serial;
      if (p.nextCursor) next = page(p.nextCursor);
      snapshot(p.rrsets, snap);
      if (!p.nextCursor) break;
      if (onPage) onPage(snap, serial);
    }
    return { serial, snap };
  }

  // loadRecords reads the zone's records. The first read shows the
  // first page's rows at once and the rest as they arrive (the filter
  // searches what is read; applying waits for the whole zone); a read
  // again replaces the records when complete.
  async loadRecords() {
    const gen = this.loadGen = (this.loadGen || 0) + 1;
    const first = this.base.size === 0;
    const { serial, snap } = await this.readRecords(first ? (part, serial) => {
      if (gen !== this.loadGen) return;
      this.loading = true;
      if (this.base !== part) {
        this.base = part;
        this.serial = serial;
        this.renderRecords();
        this.renderPending();
      } else if (!this.growTimer) {
        // Four times a second, whatever the pages' pace: each redraw
        // costs the page a layout that the reading would wait for.
        this.growTimer = setTimeout(() => { this.growTimer = 0; if (gen === this.loadGen) this.renderRows(true); }, 250);
      }
    } : null);
    if (gen !== this.loadGen) return;
    this.loading = false;
    this.serial = serial;
    this.base = snap;
    if (first) this.restoreDraft();
    this.renderHead();
    this.renderRecords();
    this.renderPending();
  }

  // indexed returns the RRsets of base with their searchable text (name,
  // type and values, lower case), built once per RRset: a snapshot read
  // page by page only grows, so its new RRsets are appended.
  indexed() {
    if (this.indexOf !== this.base) { this.indexOf = this.base; this.index = []; }
    if (this.index.length < this.base.size) {
      let i = 0;
      const z = canon(this.zone);
      for (const [k, r] of this.base) {
        if (i++ < this.index.length) continue;
        this.index.push({ k, r, s: `${r.name === z ? '@ ' : ''}${r.name}\n${r.type.toLowerCase()}\n${r.values.join('\n').toLowerCase()}` });
      }
    }
    return this.index;
  }

  // renderRecords builds the records table around the rows; the rows
  // are drawn again when the staged changes, the selection or the
  // records change.
  renderRecords() {
    this.rowCache = new Map();
    this.shown = pageRows;
    const canEdit = session.can('records');
    this.selected = this.selected || new Set();
    const ttl = h('input', { type: 'number', min: '0', name: 'bulkttl', value: '300', class: 'ttl' });
    const bulk = canEdit ? h('div', { class: 'bulk', role: 'group', 'aria-label': 'Selected RRsets' },
      h('span', { class: 'count', 'aria-live': 'polite' }, `${this.selected.size} selected`),
      h('button', { type: 'button', class: 'small danger', onclick: () => this.bulk((r) => ({ ...r, values: [] })) }, 'Delete selected'),
      field('TTL', ttl),
      h('button', { type: 'button', class: 'small', onclick: () => this.bulk((r) => ({ ...r, ttl: Number(ttl.value) })) }, 'Set TTL on selected')) : null;
    this.status = h('p', { class: 'hint', role: 'status' });
    this.caption = h('caption', { class: 'sr' });
    this.tbody = h('tbody');
    this.more = h('button', { type: 'button', class: 'small more', onclick: () => { this.moreAt = performance.now(); this.shown += pageRows; this.renderRows(); } }, 'Show more rows');
    replace(this.records, this.status, bulk,
      h('table', {}, this.caption,
        h('thead', {}, h('tr', {}, canEdit ? h('th', { scope: 'col' }, h('span', { class: 'sr' }, 'Select')) : null, ['Name', 'Type', 'TTL', 'Data'].map((c) => h('th', { scope: 'col' }, c)),
          canEdit ? h('th', { scope: 'col' }, h('span', { class: 'sr' }, 'Actions')) : null)),
        this.tbody),
      this.more);
    // Scrolling to the end of the rows shows more of them.
    if (this.moreSeen) this.moreSeen.disconnect();
    // Scrolling to the button shows more rows too; not when the button
    // came into view to be clicked (an intersection seen before the last
    // click), which would add two pages for one.
    this.moreSeen = new IntersectionObserver((es) => {
      if (es.some((x) => x.isIntersecting && x.time > (this.moreAt || 0)) && !this.more.hidden) { this.shown += pageRows; this.renderRows(); }
    });
    this.moreSeen.observe(this.more);
    this.renderRows();
  }

  // renderRows shows the rows that match the filter, the first
  // this.shown of them, from rows built once per RRset and kept until
  // renderRecords; growing says the snapshot grew (a page read), which
  // redraws only what it can change.
  renderRows(growing = false) {
    if (!this.tbody) return;
    const q = this.filter.value.trim().toLowerCase();
    const index = this.indexed();
    if (growing && !q && this.tbody.childElementCount >= this.shown) { this.showStatus(index.length, index.length); return; }
    const rows = [];
    let total = 0;
    for (const x of index) {
      if (q && !x.s.includes(q)) continue;
      if (total++ < this.shown) rows.push(x.r);
    }
    for (const [k, s] of this.staged) {
      if (this.base.has(k) || !s.values.length) continue;
      if (total++ < this.shown) rows.push({ ...s, stagedNew: true });
    }
    this.tbody.replaceChildren(...rows.map((r) => this.row(r)));
    this.more.hidden = total <= this.shown;
    this.showStatus(total, index.length);
  }

  // showStatus says how many RRsets match and are shown, and how far
  // the zone is read.
  showStatus(total, read) {
    const shown = Math.min(total, this.shown);
    this.caption.textContent = `${total} RRsets of ${this.zone}`;
    const parts = [];
    if (this.loading) parts.push(`Reading the zone: ${read} RRsets so far; the filter searches those.`);
    if (total > shown) parts.push(`Showing ${shown} of ${total} RRsets: type in the filter to find the others, or scroll for more.`);
    this.status.textContent = parts.join(' ');
    this.status.hidden = parts.length === 0;
  }

  // row is the table row of an RRset, built once until renderRecords.
  row(r) {
    const k = key(r.name, r.type);
    let tr = this.rowCache.get(k);
    if (tr) return tr;
    const canEdit = session.can('records');
    const st = this.staged.get(k);
    const cls = st ? (st.values.length ? 'staged-change' : 'staged-delete') : '';
    const label = `${relName(r.name, this.zone)} ${r.type}`;
    const editable = canEdit && r.type !== 'SOA';
    tr = h('tr', { class: cls, 'data-key': k },
      canEdit ? h('td', {}, editable ? h('input', { type: 'checkbox', 'aria-label': 'Select ' + label, checked: this.selected.has(k),
        onchange: (e) => { if (e.target.checked) this.selected.add(k); else this.selected.delete(k); this.querySelector('.bulk .count').textContent = `${this.selected.size} selected`; } }) : null) : null,
      h('td', {}, relName(r.name, this.zone)), h('td', {}, r.type), h('td', {}, String((st && st.values.length ? st : r).ttl)),
      h('td', { class: 'data' }, (st && st.values.length ? st : r).values.map((v) => h('div', {}, v))),
      canEdit ? h('td', { class: 'rowactions' }, editable ? [
        h('button', { type: 'button', class: 'small', 'aria-label': 'Edit ' + label, onclick: () => this.edit(r) }, 'Edit'),
        h('button', { type: 'button', class: 'small danger', 'aria-label': 'Delete ' + label, onclick: () => this.stage({ name: r.name, type: r.type, ttl: r.ttl, values: [] }) }, 'Delete'),
      ] : null) : null);
    this.rowCache.set(k, tr);
    return tr;
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
    if (this.loading) { replace(this.notice, h('p', { class: 'warn' }, 'The zone is still being read: edit it as text once it is read whole.')); return; }
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

  // keepDraft keeps the pending changes in this tab's sessionStorage
  // while the page is left for the OIDC provider's sign-in.
  keepDraft() {
    if (this.staged.size) sessionStorage.setItem(draftKey, JSON.stringify({ zone: this.zone, view: this.view || '', serial: this.serial, staged: [...this.staged.values()] }));
  }

  // restoreDraft stages again the changes kept before the page was left,
  // once the zone is read; if the zone moved on meanwhile, they are
  // shown against the zone as it is now, with a warning.
  restoreDraft() {
    let d = null;
    try { d = JSON.parse(sessionStorage.getItem(draftKey) || 'null'); } catch { /* none */ }
    if (!d || d.zone !== this.zone || d.view !== (this.view || '')) return;
    sessionStorage.removeItem(draftKey);
    for (const rr of d.staged) this.stage(rr, false);
    replace(this.notice, h('p', { class: d.serial === this.serial ? '' : 'warn' }, `Your pending changes from before the sign-in are back (${d.staged.length} RRset${d.staged.length === 1 ? '' : 's'})` +
      (d.serial === this.serial ? '.' : `; the zone changed meanwhile (serial ${d.serial} → ${this.serial}): they are shown against the zone as it is now, review them before you apply.`)));
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
        h('button', { type: 'button', class: 'primary', disabled: d.length === 0 || this.loading, title: this.loading ? 'the zone is still being read' : '', onclick: () => this.apply() }, 'Apply changes'),
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
      const r = await request('PATCH', zonePath(this.zone, '/records', this.view), { body, headers: { 'If-Match': `"${this.serial}"` } });
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
    location.hash = this.href('records');
  }

  // href is the fragment of one of the zone's tabs (in its view).
  href(tab) {
    return `#/zones/${encodeURIComponent(this.zone)}/${tab}` + (this.view ? '?view=' + encodeURIComponent(this.view) : '');
  }

  onChange(c) {
    if (c.zone && canon(c.zone) !== canon(this.zone)) return;
    if ((c.view || '') !== (this.view || '') && c.view && this.view) return;
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
