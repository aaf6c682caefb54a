// gamewire inspector page. The decoding is done in Go: by the gamewire server (api/explain) or,
// on the static site, by the same Go code compiled to WebAssembly (explain.wasm). This file only
// draws what it gets: a virtualised hex view and a virtualised field tree.
'use strict';

(function () {
  const cfg = window.GAMEWIRE || { mode: 'server' };
  const $ = (id) => document.getElementById(id);
  const ROW_H = 22;
  const LINK_MAX = 64 * 1024; // bytes of input a link carries
  const AUTO_MAX = 256 * 1024; // characters of text explained as you type

  const st = {
    formats: [], ex: null, bytes: new Uint8Array(0), nodes: [], parent: [], level: [],
    leafBit: null, leafEnd: null, leafId: null, leafOfNode: null,
    open: new Set(), rows: [], sel: -1, hov: -1, fileBytes: null, fileName: '',
    perRow: 16, bitLevel: false, reqSeq: 0, pendingSel: -1,
    // source: the input's bytes when the hex view shows a part of them (a capture's stream);
    // dynOptions: the options box shows the explanation's options, not the format's;
    // carryOpts: options from a link that the box does not show yet (a capture's stream format's).
    source: null, dynOptions: false, carryOpts: null,
  };

  // ---- backends ----
  const backend = cfg.mode === 'wasm' ? wasmBackend() : serverBackend();

  function serverBackend() {
    return {
      label: 'decoding on the gamewire server',
      async formats() {
        const r = await fetch('api/formats');
        if (!r.ok) throw new Error('api/formats: ' + r.status);
        return r.json();
      },
      async explain(req) {
        const r = await fetch('api/explain', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(req) });
        const body = await r.json();
        if (!r.ok) return { error: body.error || ('HTTP ' + r.status) };
        return { ex: body };
      },
    };
  }

  function wasmBackend() {
    let ready = null;
    function load() {
      if (ready) return ready;
      ready = new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = 'wasm_exec.js';
        s.onerror = () => reject(new Error('wasm_exec.js did not load'));
        s.onload = async () => {
          try {
            const go = new Go();
            let inst;
            try {
              inst = await WebAssembly.instantiateStreaming(fetch('explain.wasm'), go.importObject);
            } catch (e) {
              // A server without the application/wasm type: instantiate from the bytes.
              const buf = await (await fetch('explain.wasm')).arrayBuffer();
              inst = await WebAssembly.instantiate(buf, go.importObject);
            }
            go.run(inst.instance);
            const t0 = Date.now();
            while (typeof window.gamewireExplain !== 'function') {
              if (Date.now() - t0 > 10000) throw new Error('explain.wasm did not start');
              await new Promise((r) => setTimeout(r, 10));
            }
            resolve();
          } catch (e) { reject(e); }
        };
        document.head.appendChild(s);
      });
      return ready;
    }
    return {
      label: 'decoding in your browser (WebAssembly)',
      async formats() { await load(); return JSON.parse(window.gamewireFormats()); },
      async explain(req) {
        await load();
        const out = JSON.parse(window.gamewireExplain(JSON.stringify(req)));
        if (out.error) return { error: out.error };
        return { ex: out.explanation };
      },
    };
  }

  // ---- bytes and text ----
  function b64ToBytes(s) {
    const bin = atob(s || '');
    const b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return b;
  }
  function bytesToB64(b) {
    let s = '';
    for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
    return btoa(s);
  }
  const b64url = (b) => bytesToB64(b).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const fromB64url = (s) => b64ToBytes(s.replace(/-/g, '+').replace(/_/g, '/'));
  const hex2 = (n) => (n < 16 ? '0' : '') + n.toString(16);
  function spacedHex(b) {
    const parts = new Array(b.length);
    for (let i = 0; i < b.length; i++) parts[i] = hex2(b[i]);
    return parts.join(' ');
  }
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  const hue = (k) => Math.round((k * 137.508) % 360);

  // ---- formats and options ----
  function currentFormat() { return st.formats.find((f) => f.name === $('format').value); }
  // renderOptions shows the format's options, or list (an explanation's options) instead.
  function renderOptions(values, list) {
    const f = currentFormat();
    const box = $('options');
    box.innerHTML = '';
    st.dynOptions = !!list;
    const opts = list || (f && f.options);
    if (!opts) return;
    for (const o of opts) {
      const lab = document.createElement('label');
      lab.textContent = o.label + ' ';
      let el;
      if (o.choices) {
        el = document.createElement('select');
        for (const c of o.choices) {
          const op = document.createElement('option');
          op.value = c.value; op.textContent = c.label;
          el.appendChild(op);
        }
      } else {
        el = document.createElement('input');
        el.placeholder = o.placeholder || '';
      }
      el.id = 'opt-' + o.name;
      el.dataset.opt = o.name;
      el.value = (values && values[o.name] != null) ? values[o.name] : (o.value != null ? o.value : o.default);
      el.addEventListener('change', () => explainNow());
      if (!o.choices) el.addEventListener('input', debounce(() => explainNow(), 400));
      lab.appendChild(el);
      box.appendChild(lab);
    }
  }
  function optionValues() {
    const o = {};
    for (const el of $('options').querySelectorAll('[data-opt]')) o[el.dataset.opt] = el.value;
    return o;
  }

  // ---- explaining ----
  function request() {
    const req = { format: $('format').value, options: Object.assign(optionValues(), st.carryOpts || {}) };
    if (st.fileBytes) {
      req.input = bytesToB64(st.fileBytes);
      req.encoding = 'base64';
    } else {
      req.input = $('input').value;
      req.encoding = 'auto';
    }
    return req;
  }

  async function explainNow(force) {
    const req = request();
    // The same request again (an option field losing focus, say) keeps the view as it is.
    const key = JSON.stringify(req);
    if (key === st.lastReq && !force) return;
    st.lastReq = key;
    const seq = ++st.reqSeq;
    if (!req.input.trim()) { show(null); status('', []); document.body.dataset.state = 'ready'; return; }
    document.body.dataset.state = 'busy';
    let res;
    try {
      res = await backend.explain(req);
    } catch (e) {
      res = { error: String(e.message || e) };
    }
    if (seq !== st.reqSeq) return;
    if (res.error) {
      show(null);
      status('', [{ msg: res.error, off: -1 }]);
    } else {
      show(res.ex);
    }
    document.body.dataset.state = 'ready';
    updateLink();
  }

  function status(text, errs, notes) {
    const s = $('status');
    s.innerHTML = '';
    if (text) {
      const t = document.createElement('span'); t.className = 'note'; t.textContent = text; s.appendChild(t);
    }
    for (const n of notes || []) {
      const t = document.createElement('span'); t.className = 'note'; t.textContent = n; s.appendChild(t);
    }
    for (const e of errs || []) {
      const t = document.createElement('span');
      t.className = 'err';
      t.textContent = (e.off >= 0 ? 'error at byte ' + e.off + (st.bitLevel ? ' (bit ' + e.bit + ')' : '') + ': ' : '') + e.msg;
      if (e.row != null) t.addEventListener('click', () => select(e.row, true));
      s.appendChild(t);
    }
  }

  // show lays out an explanation: node tables, leaves, and both views.
  function show(ex) {
    st.ex = ex;
    st.nodes = []; st.parent = []; st.level = [];
    st.open = new Set(); st.sel = -1; st.hov = -1;
    st.bytes = ex ? b64ToBytes(ex.data) : new Uint8Array(0);
    st.source = ex && ex.source ? b64ToBytes(ex.source) : null;
    if (ex) {
      st.carryOpts = null;
      // A capture offers its streams and the stream's format as options of its own.
      if (ex.options) renderOptions(null, ex.options);
      else if (st.dynOptions) renderOptions();
    }
    st.bitLevel = !!(ex && ex.bitLevel);
    st.perRow = st.bitLevel ? 8 : 16;
    const roots = [];
    if (ex) {
      const walk = (n, p, lv) => {
        st.nodes[n.id] = n; st.parent[n.id] = p; st.level[n.id] = lv;
        for (const c of n.children || []) walk(c, n.id, lv + 1);
      };
      for (const n of ex.nodes) { walk(n, -1, 0); roots.push(n.id); }
      // Errors become rows of their own, spanning the bytes left undecoded.
      let id = st.nodes.length;
      for (const e of ex.errors || []) {
        // An error covers its len bytes (a malformed frame decoding went on after), else the rest.
        const len = e.len ? e.len : Math.max(ex.size - e.off, 0);
        const n = { id: id, name: 'error', type: '', value: e.msg, off: Math.min(e.off, ex.size), len: len, bit: e.bit, bits: 8 * len - (e.bit - 8 * e.off), isError: true };
        st.nodes[id] = n; st.parent[id] = -1; st.level[id] = 0; roots.push(id);
        e.row = id;
        id++;
      }
    }
    st.roots = roots;
    buildLeaves();
    // Open the first levels: frames and values show their fields at once.
    for (const r of roots) openTo(r, 2);
    const head = ex ? (ex.title + ' · ' + (ex.part ? ex.part + ' · ' : '') + ex.size + ' bytes' + (ex.input ? ' (' + ex.input + (st.source ? ', ' + st.source.length + ' bytes of input' : '') + ')' : '')) : 'bytes';
    $('hexhead').textContent = head;
    $('hexhead').title = head;
    $('treehead').textContent = ex ? ex.fields + ' fields' : 'fields';
    status('', ex ? ex.errors : [], ex ? ex.notes : []);
    document.body.dataset.format = ex ? ex.format : '';
    flatten();
    layoutHex();
    renderTree();
    renderDetail();
    if (st.pendingSel >= 0 && st.pendingSel < st.nodes.length) {
      select(st.pendingSel, true);
    }
    st.pendingSel = -1;
  }

  function openTo(id, depth) {
    if (depth <= 0) return;
    const n = st.nodes[id];
    if (n.children && n.children.length) {
      st.open.add(id);
      if (n.children.length <= 64) for (const c of n.children) openTo(c.id, depth - 1);
    }
  }

  // buildLeaves collects the leaf fields sorted by first bit, for the byte → field lookup.
  function buildLeaves() {
    const leaves = [];
    for (const n of st.nodes) {
      if (n && !n.isError && !(n.children && n.children.length) && n.bits > 0) leaves.push(n);
    }
    leaves.sort((a, b) => a.bit - b.bit || a.id - b.id);
    st.leafBit = new Float64Array(leaves.length);
    st.leafEnd = new Float64Array(leaves.length);
    st.leafId = new Int32Array(leaves.length);
    st.leafOfNode = new Int32Array(st.nodes.length).fill(-1);
    leaves.forEach((n, i) => { st.leafBit[i] = n.bit; st.leafEnd[i] = n.bit + n.bits; st.leafId[i] = n.id; st.leafOfNode[n.id] = i; });
  }

  // leafAt returns the index of the leaf holding bit b, or -1.
  function leafAt(b) {
    let lo = 0, hi = st.leafBit.length - 1, k = -1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (st.leafBit[m] <= b) { k = m; lo = m + 1; } else hi = m - 1;
    }
    return k >= 0 && b < st.leafEnd[k] ? k : -1;
  }

  // ---- tree ----
  function flatten() {
    const rows = [];
    const add = (id) => {
      rows.push(id);
      const n = st.nodes[id];
      if (st.open.has(id)) for (const c of n.children || []) add(c.id);
    };
    for (const r of st.roots || []) add(r);
    st.rows = rows;
    st.rowOf = new Map(rows.map((id, i) => [id, i]));
    $('treespace').style.height = rows.length * ROW_H + 'px';
  }

  function place(n) {
    if (n.bits === 0) return 'at byte ' + n.off + (n.off >= st.bytes.length ? ' (the end)' : '');
    if (st.bitLevel && (n.bit % 8 !== 0 || n.bits % 8 !== 0)) return 'bit ' + n.bit + (n.bits !== 1 ? '–' + (n.bit + n.bits - 1) : '');
    return n.len === 1 ? 'byte ' + n.off : 'bytes ' + n.off + '–' + (n.off + n.len - 1);
  }

  function renderTree() {
    const box = $('tree');
    const space = $('treespace');
    const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 5);
    const last = Math.min(st.rows.length, first + Math.ceil(box.clientHeight / ROW_H) + 10);
    let html = '';
    for (let i = first; i < last; i++) {
      const id = st.rows[i];
      const n = st.nodes[id];
      const kids = n.children && n.children.length;
      const li = st.leafOfNode[id];
      const sw = li >= 0 ? '<span class="sw c" style="--h:' + hue(li) + '"></span>' : (n.isError ? '<span class="sw undec"></span>' : '<span class="sw"></span>');
      const cls = 'trow' + (id === st.sel ? ' sel' : '') + (id === st.hov ? ' hov' : '') + (n.error ? ' bad' : '') + (n.isError ? ' errrow' : '');
      html += '<div class="' + cls + '" role="treeitem" id="row-' + id + '" data-id="' + id + '" aria-level="' + (st.level[id] + 1) + '"' +
        (kids ? ' aria-expanded="' + st.open.has(id) + '"' : '') + ' aria-selected="' + (id === st.sel) + '" style="top:' + i * ROW_H + 'px;padding-left:' + (0.3 + st.level[id] * 1.1) + 'rem">' +
        '<span class="tw">' + (kids ? (st.open.has(id) ? '▾' : '▸') : '') + '</span>' + sw +
        '<span class="tn">' + esc(n.name) + '</span><span class="tt">' + esc(n.type || '') + '</span>' +
        '<span class="tv" title="' + esc(n.value || '') + '">' + esc(n.value || '') + '</span>' +
        '<span class="to">' + place(n) + '</span></div>';
    }
    space.innerHTML = html;
    if (st.sel >= 0) $('tree').setAttribute('aria-activedescendant', 'row-' + st.sel);
  }

  // ---- hex view ----
  function layoutHex() {
    const rows = Math.ceil(st.bytes.length / st.perRow);
    $('hexspace').style.height = rows * ROW_H + 'px';
    $('hexspace').style.width = '';
    $('hex').scrollTop = 0;
    renderHex();
    // The rows are positioned absolutely: give the space the width of a full row.
    const row = $('hexspace').querySelector('.hrow');
    if (row) $('hexspace').style.width = (row.offsetWidth + 2) + 'px';
  }

  function inRange(n, bitLo, bitHi) { return n && bitLo < n.bit + n.bits && n.bit < bitHi; }

  function renderHex() {
    const box = $('hex');
    const b = st.bytes;
    const per = st.perRow;
    const rows = Math.ceil(b.length / per);
    const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 5);
    const last = Math.min(rows, first + Math.ceil(box.clientHeight / ROW_H) + 10);
    const sel = st.sel >= 0 ? st.nodes[st.sel] : null;
    const hov = st.hov >= 0 ? st.nodes[st.hov] : null;
    const errAt = new Set((st.ex && st.ex.errors || []).map((e) => e.off));
    let html = '';
    for (let r = first; r < last; r++) {
      const start = r * per;
      html += '<div class="hrow" style="top:' + r * ROW_H + 'px"><span class="hoff">' + start.toString(16).padStart(6, '0') + '</span>';
      let bits = '', asc = '';
      for (let i = start; i < start + per; i++) {
        if (i >= b.length) { html += '<span class="hx"> </span>'; continue; }
        const k0 = leafAt(8 * i), k1 = leafAt(8 * i + 7);
        let cls = 'hx', style = '';
        if (k0 < 0 && k1 < 0) cls += ' undec';
        else if (k0 === k1 || k1 < 0 || k0 < 0) { cls += ' c'; style = '--h:' + hue(k0 >= 0 ? k0 : k1); }
        else { cls += ' mixed'; style = '--h:' + hue(k0) + ';--h2:' + hue(k1); }
        if (inRange(sel, 8 * i, 8 * i + 8)) cls += ' sel';
        if (inRange(hov, 8 * i, 8 * i + 8)) cls += ' hov';
        if (errAt.has(i)) cls += ' errat';
        if (!st.bitLevel && (i - start) === 7) cls += ' gap';
        html += '<span class="' + cls + '" data-i="' + i + '" style="' + style + '">' + hex2(b[i]) + '</span>';
        if (st.bitLevel) {
          bits += '<span class="bitsgrp">';
          for (let j = 0; j < 8; j++) {
            const bit = 8 * i + j;
            const k = leafAt(bit);
            let bc = 'bt' + (j === 0 ? ' b0' : '') + (k < 0 ? ' undec' : ' c');
            if (inRange(sel, bit, bit + 1)) bc += ' sel';
            if (inRange(hov, bit, bit + 1)) bc += ' hov';
            bits += '<span class="' + bc + '" data-b="' + bit + '"' + (k >= 0 ? ' style="--h:' + hue(k) + '"' : '') + '>' + ((b[i] >> (7 - j)) & 1) + '</span>';
          }
          bits += '</span>';
        }
        const c = b[i];
        asc += '<i>' + (c >= 32 && c < 127 ? esc(String.fromCharCode(c)) : '·') + '</i>';
      }
      html += bits + '<span class="asc">' + asc + '</span></div>';
    }
    $('hexspace').innerHTML = html;
  }

  // ---- selection ----
  function select(id, reveal) {
    if (id < 0 || id >= st.nodes.length || !st.nodes[id]) return;
    st.sel = id;
    // Open the ancestors so that the row is visible.
    let changed = false;
    for (let p = st.parent[id]; p >= 0; p = st.parent[p]) {
      if (!st.open.has(p)) { st.open.add(p); changed = true; }
    }
    if (changed) flatten();
    if (reveal) {
      const i = st.rowOf.get(id);
      const tree = $('tree');
      if (i != null && (i * ROW_H < tree.scrollTop || (i + 1) * ROW_H > tree.scrollTop + tree.clientHeight)) {
        tree.scrollTop = Math.max(0, i * ROW_H - tree.clientHeight / 2);
      }
      const n = st.nodes[id];
      const hex = $('hex');
      const r = Math.floor(n.off / st.perRow);
      if (r * ROW_H < hex.scrollTop || (r + 1) * ROW_H > hex.scrollTop + hex.clientHeight) {
        hex.scrollTop = Math.max(0, r * ROW_H - hex.clientHeight / 3);
      }
    }
    renderTree();
    renderHex();
    renderDetail();
    updateLink();
  }

  // hover marks a field's row and cells without redrawing, so that the element under the
  // pointer stays the same between a press and a release.
  function hover(id) {
    if (st.hov === id) return;
    st.hov = id;
    for (const e of document.querySelectorAll('.hov')) e.classList.remove('hov');
    if (id < 0) return;
    const row = document.getElementById('row-' + id);
    if (row) row.classList.add('hov');
    const n = st.nodes[id];
    for (const e of $('hexspace').querySelectorAll('.hx[data-i]')) {
      const i = +e.dataset.i;
      if (inRange(n, 8 * i, 8 * i + 8)) e.classList.add('hov');
    }
    if (st.bitLevel) {
      for (const e of $('hexspace').querySelectorAll('.bt')) {
        const b = +e.dataset.b;
        if (inRange(n, b, b + 1)) e.classList.add('hov');
      }
    }
  }

  function renderDetail() {
    const d = $('detail');
    if (st.sel < 0) {
      d.innerHTML = st.ex ? '<span class="muted">Select a field in the tree or a byte in the hex view.</span>' : '';
      return;
    }
    const n = st.nodes[st.sel];
    const bytes = st.bytes.subarray(n.off, Math.min(n.off + n.len, n.off + 32));
    let h = '<b>' + esc(n.name) + '</b> <span class="muted">' + esc(n.type || '') + '</span> ' + esc(n.value || '') +
      '<br><span class="muted">' + place(n) + (n.bits ? ' (' + n.len + ' byte' + (n.len === 1 ? '' : 's') + (st.bitLevel ? ', ' + n.bits + ' bits from bit ' + n.bit : '') + ')' : '') + '</span> <code>' + spacedHex(bytes) + (n.len > 32 ? ' …' : '') + '</code>';
    if (st.bitLevel && n.bits > 0 && n.bits <= 64) {
      let bits = '';
      for (let b = n.bit; b < n.bit + n.bits; b++) bits += (st.bytes[b >> 3] >> (7 - (b & 7))) & 1;
      h += ' <span class="muted">bits</span> <code>' + bits + '</code>';
    }
    if (n.error) h += '<br><span class="e">' + esc(n.error) + '</span>';
    d.innerHTML = h;
  }

  // ---- link ----
  function updateLink() {
    const p = new URLSearchParams();
    p.set('f', $('format').value);
    for (const [k, v] of Object.entries(optionValues())) if (v) p.set('o.' + k, v);
    const input = inputBytes();
    if (input.length && input.length <= LINK_MAX) p.set('in', b64url(input));
    if (st.sel >= 0) p.set('sel', String(st.sel));
    history.replaceState(null, '', '#' + p.toString());
  }

  // inputBytes returns the bytes of the input: those shown, or the capture they are a part of.
  function inputBytes() { return st.source || st.bytes; }

  async function fromLink() {
    const h = location.hash.replace(/^#/, '');
    if (!h) return false;
    const p = new URLSearchParams(h);
    const f = p.get('f');
    if (f && [...$('format').options].some((o) => o.value === f)) $('format').value = f;
    const opts = {};
    for (const [k, v] of p) if (k.startsWith('o.')) opts[k.slice(2)] = v;
    renderOptions(opts);
    // Options the format does not list (a capture's stream format's) go with the first request.
    const shown = optionValues();
    st.carryOpts = {};
    for (const [k, v] of Object.entries(opts)) if (shown[k] !== v) st.carryOpts[k] = v;
    if (p.has('in')) {
      const b = fromB64url(p.get('in'));
      $('input').value = spacedHex(b);
    }
    if (p.has('sel')) st.pendingSel = parseInt(p.get('sel'), 10);
    await explainNow();
    return true;
  }

  // ---- events ----
  function debounce(fn, ms) {
    let t = 0;
    return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  }

  function wire() {
    $('format').addEventListener('change', () => { renderOptions(); explainNow(); });
    $('explain').addEventListener('click', () => explainNow(true));
    $('input').addEventListener('input', () => {
      st.fileBytes = null;
      if ($('input').value.length <= AUTO_MAX) autoExplain();
      else status('large input: press Explain', []);
    });
    const autoExplain = debounce(() => explainNow(), 250);
    $('link').addEventListener('click', async () => {
      updateLink();
      let msg = 'link copied';
      if (inputBytes().length > LINK_MAX) msg = 'the input is larger than ' + LINK_MAX + ' bytes: the link keeps the format and options, not the bytes';
      try { await navigator.clipboard.writeText(location.href); } catch (e) { msg = 'the link is in the address bar'; }
      $('link').textContent = 'Copy link ✓';
      setTimeout(() => { $('link').textContent = 'Copy link'; }, 1500);
      status(msg, st.ex ? st.ex.errors : [], []);
    });
    $('file').addEventListener('change', (e) => { if (e.target.files[0]) readFile(e.target.files[0]); });
    let depth = 0;
    addEventListener('dragenter', (e) => { e.preventDefault(); depth++; $('drop').hidden = false; });
    addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; $('drop').hidden = true; } });
    addEventListener('dragover', (e) => e.preventDefault());
    addEventListener('drop', (e) => {
      e.preventDefault(); depth = 0; $('drop').hidden = true;
      const f = e.dataTransfer.files[0];
      if (f) readFile(f);
    });

    const tree = $('tree');
    tree.addEventListener('scroll', () => requestAnimationFrame(renderTree));
    tree.addEventListener('click', (e) => {
      const row = e.target.closest('.trow');
      if (!row) return;
      const id = +row.dataset.id;
      if (e.target.classList.contains('tw')) toggle(id);
      select(id, true);
      tree.focus({ preventScroll: true });
    });
    tree.addEventListener('mouseover', (e) => {
      const row = e.target.closest('.trow');
      hover(row ? +row.dataset.id : -1);
    });
    tree.addEventListener('mouseleave', () => hover(-1));
    tree.addEventListener('keydown', treeKey);

    const hex = $('hex');
    hex.addEventListener('scroll', () => requestAnimationFrame(renderHex));
    const cellLeaf = (t) => {
      if (t.dataset.b != null) return leafAt(+t.dataset.b);
      if (t.dataset.i != null) return leafAt(8 * +t.dataset.i);
      return -2;
    };
    hex.addEventListener('mouseover', (e) => {
      const k = cellLeaf(e.target);
      if (k === -2) return;
      hover(k >= 0 ? st.leafId[k] : -1);
    });
    hex.addEventListener('mouseleave', () => hover(-1));
    hex.addEventListener('click', (e) => {
      const k = cellLeaf(e.target);
      if (k >= 0) select(st.leafId[k], true);
      hex.focus({ preventScroll: true });
    });
    hex.addEventListener('keydown', hexKey);
    addEventListener('resize', () => { renderHex(); renderTree(); });
  }

  function toggle(id) {
    const n = st.nodes[id];
    if (!n.children || !n.children.length) return;
    if (st.open.has(id)) st.open.delete(id); else st.open.add(id);
    flatten();
    renderTree();
  }

  function treeKey(e) {
    if (!st.rows.length) return;
    let i = st.sel >= 0 ? st.rowOf.get(st.sel) : -1;
    const id = st.sel;
    const n = id >= 0 ? st.nodes[id] : null;
    const kids = n && n.children && n.children.length;
    switch (e.key) {
      case 'ArrowDown': i = Math.min(st.rows.length - 1, i + 1); break;
      case 'ArrowUp': i = Math.max(0, i - 1); break;
      case 'Home': i = 0; break;
      case 'End': i = st.rows.length - 1; break;
      case 'PageDown': i = Math.min(st.rows.length - 1, i + Math.floor($('tree').clientHeight / ROW_H)); break;
      case 'PageUp': i = Math.max(0, i - Math.floor($('tree').clientHeight / ROW_H)); break;
      case 'ArrowRight':
        if (kids && !st.open.has(id)) { toggle(id); e.preventDefault(); return; }
        if (kids) i = i + 1;
        break;
      case 'ArrowLeft':
        if (kids && st.open.has(id)) { toggle(id); e.preventDefault(); return; }
        if (id >= 0 && st.parent[id] >= 0) i = st.rowOf.get(st.parent[id]);
        break;
      case 'Enter': case ' ':
        if (id >= 0) toggle(id);
        e.preventDefault();
        return;
      default: return;
    }
    e.preventDefault();
    if (i < 0) i = 0;
    select(st.rows[i], true);
  }

  function hexKey(e) {
    const n = st.leafId.length;
    if (!n) return;
    let k = st.sel >= 0 ? st.leafOfNode[st.sel] : -1;
    if (k < 0 && st.sel >= 0) k = leafAt(st.nodes[st.sel].bit);
    switch (e.key) {
      case 'ArrowRight': k = k < 0 ? 0 : Math.min(n - 1, k + 1); break;
      case 'ArrowLeft': k = k < 0 ? 0 : Math.max(0, k - 1); break;
      case 'ArrowDown': case 'ArrowUp': {
        const cur = k >= 0 ? st.leafBit[k] : 0;
        const step = 8 * st.perRow * (e.key === 'ArrowDown' ? 1 : -1);
        const want = Math.max(0, Math.min(8 * st.bytes.length - 1, cur + step));
        let j = leafAt(want);
        if (j < 0) return;
        k = j;
        break;
      }
      case 'Home': k = 0; break;
      case 'End': k = n - 1; break;
      default: return;
    }
    e.preventDefault();
    select(st.leafId[k], true);
  }

  function readFile(f) {
    const r = new FileReader();
    r.onload = () => {
      const b = new Uint8Array(r.result);
      // A text file (a hex dump, hex or base64) is read as text; anything else as raw bytes.
      let text = true;
      for (let i = 0; i < Math.min(b.length, 4096); i++) {
        const c = b[i];
        if (c < 9 || (c > 13 && c < 32) || c > 126) { text = false; break; }
      }
      if (text && b.length <= 8 * 1024 * 1024) {
        st.fileBytes = null;
        $('input').value = new TextDecoder().decode(b);
      } else {
        st.fileBytes = b;
        st.fileName = f.name;
        $('input').value = b.length <= 4096 ? spacedHex(b) : '';
        $('input').placeholder = f.name + ': ' + b.length + ' bytes (raw file) — type or paste here to replace it';
        if (b.length <= 4096) st.fileBytes = null;
      }
      explainNow(true);
    };
    r.readAsArrayBuffer(f);
  }

  // ---- start ----
  async function start() {
    $('mode').textContent = backend.label;
    wire();
    try {
      st.formats = await backend.formats();
    } catch (e) {
      status('', [{ msg: 'the decoder did not start: ' + (e.message || e) + (location.protocol === 'file:' ? ' (open the site through a web server: browsers do not load WebAssembly from file:// pages)' : ''), off: -1 }]);
      document.body.dataset.state = 'failed';
      return;
    }
    for (const f of st.formats) {
      const o = document.createElement('option');
      o.value = f.name; o.textContent = f.title;
      $('format').appendChild(o);
    }
    if (!(await fromLink())) renderOptions();
    document.body.dataset.state = 'ready';
  }

  // For tests and for the console: the state and two actions.
  window.inspector = { state: st, select, explain: explainNow };
  start();
})();
