// The history across every zone the token may read, newest first, kept
// live by the event stream.

import { h, replace, errorBox, field } from './dom.js';
import { request } from './api.js';
import { subscribe } from './events.js';
import { entryView, readLast } from './changes.js';

class History extends HTMLElement {
  connectedCallback() {
    this.filter = h('input', { type: 'search', placeholder: 'zone, name or identity', oninput: () => this.apply() });
    this.list = h('ol', { class: 'changes', reversed: true, 'aria-live': 'polite' });
    replace(this, h('h1', {}, 'History'), h('div', { class: 'filters', role: 'search' }, field('Filter changes', this.filter)), this.list);
    this.load();
  }

  disconnectedCallback() { if (this.sub) this.sub.close(); }

  async load() {
    try {
      const last = await readLast(request, '/changes', 200);
      replace(this.list, last.reverse().map((c) => entryView(c)));
      this.sub = subscribe('', last.length ? last[0].id : '', (c) => { this.list.prepend(entryView(c)); this.apply(); });
      this.apply();
    } catch (e) {
      replace(this.list, h('li', {}, errorBox(e)));
    }
  }

  apply() {
    const q = this.filter.value.trim().toLowerCase();
    for (const li of this.list.children) li.hidden = q !== '' && !li.textContent.toLowerCase().includes(q);
  }
}
customElements.define('za-history', History);
