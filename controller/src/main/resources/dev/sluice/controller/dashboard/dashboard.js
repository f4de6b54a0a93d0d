/*
 * Sluice operator dashboard.
 *
 * Reads the control node's Server-Sent Events stream (GET api/events) with fetch() so that a
 * bearer token can be sent, renders cluster / deployment / replica / actor tables and four uPlot
 * charts, and lets the operator scale a deployment by one replica.
 *
 * Plain ES2017, no build step. Every value coming from the server may be null and is treated as
 * untrusted: strings are escaped before they are inserted as HTML.
 */
(function () {
  'use strict';

  const MAX_POINTS = 300;        // 5 minutes at one point per second
  const RETRY_MS = 1000;
  const TOKEN_KEY = 'sluice-token';

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- formatting & escaping

  const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

  function esc(value) {
    return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }
  function isNum(v) { return typeof v === 'number' && isFinite(v); }   // false for null
  function numOrNull(v) { return isNum(v) ? v : null; }
  function arr(v) { return Array.isArray(v) ? v : []; }
  function obj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}; }
  function str(v) { return v === null || v === undefined ? '' : String(v); }

  /** Escaped text, or an em dash for null/empty. */
  function text(v) { return str(v) === '' ? '—' : esc(v); }
  function fmt1(v) { return isNum(v) ? v.toFixed(1) : '—'; }
  function fmtInt(v) { return isNum(v) ? String(Math.round(v)) : '—'; }
  function fmtRate(v) { return isNum(v) ? v.toFixed(1) + '/s' : '—'; }
  function fmtPct(v) { return isNum(v) ? (v * 100).toFixed(1) + '%' : '—'; }

  // Status words → badge colour. A Map, so odd strings such as "constructor" can't match.
  const STATUS_CLASS = new Map();
  'HEALTHY RUNNING UP'.split(' ').forEach((s) => STATUS_CLASS.set(s, 'good'));
  ('UPDATING UPSCALING DOWNSCALING STARTING PENDING RECOVERING STOPPING DRAINING ' +
    'JOINING WEAKLYUP LEAVING EXITING').split(' ').forEach((s) => STATUS_CLASS.set(s, 'warn'));
  'UNHEALTHY DEPLOY_FAILED FAILED DOWN REMOVED'.split(' ').forEach((s) => STATUS_CLASS.set(s, 'bad'));

  function badge(status) {
    const cls = STATUS_CLASS.get(str(status).toUpperCase()) || 'neutral';
    return `<span class="badge ${cls}">${text(status)}</span>`;
  }

  /** Replaces an element's HTML only when it changed, so selections and focus survive idle ticks. */
  const lastHtml = new WeakMap();
  function setHtml(el, html) {
    if (lastHtml.get(el) === html) return false;
    el.innerHTML = html;
    lastHtml.set(el, html);
    return true;
  }

  // ---------------------------------------------------------------- token & API calls

  let memoryToken = '';   // fallback when sessionStorage is unavailable (e.g. sandboxed frames)

  function getToken() {
    try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return memoryToken; }
  }
  function setToken(token) {
    memoryToken = token;
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
    } catch (e) { /* keep the in-memory copy */ }
  }
  function authHeaders(extra) {
    const headers = Object.assign({}, extra);
    const token = getToken();
    if (token) headers.Authorization = 'Bearer ' + token;
    return headers;
  }

  function askForToken() {
    const form = $('token-form');
    if (!form.hidden) return;
    form.hidden = false;
    $('token').value = getToken();
    $('token').focus();
  }

  function onTokenSubmit(ev) {
    ev.preventDefault();
    setToken($('token').value.trim());
    $('token-form').hidden = true;
    connect(false);
  }

  /** Extracts {"error":{"message":...}} from a failed response, falling back to the status line. */
  async function errorMessage(res) {
    try {
      const message = str(obj(obj(JSON.parse(await res.text())).error).message);
      if (message) return message;
    } catch (e) { /* unreadable or not JSON */ }
    return `HTTP ${res.status} ${res.statusText}`.trim();
  }

  // ---------------------------------------------------------------- event stream

  let streamGen = 0;       // incremented per connection; a finished stale loop sees a newer value
  let streamAbort = null;
  let retryTimer = null;

  function setConnection(ok, label) {
    $('connection').textContent = label;
    $('connection').className = ok ? 'ok' : 'down';
  }

  /** Opens the stream; on a retry the "disconnected — retrying" status stays until connected. */
  function connect(isRetry) {
    clearTimeout(retryTimer);
    if (streamAbort) streamAbort.abort();
    const gen = ++streamGen;
    streamAbort = new AbortController();
    if (!isRetry) setConnection(false, 'connecting…');
    readStream(streamAbort.signal).then(
      (outcome) => afterStream(gen, outcome),
      () => afterStream(gen, 'failed'));
  }

  function afterStream(gen, outcome) {
    if (gen !== streamGen) return;   // superseded by a newer connection (e.g. token entered)
    if (outcome === 'unauthorized') {
      setConnection(false, 'unauthorized — token required');
      askForToken();                 // reconnects when the form is submitted
      return;
    }
    setConnection(false, 'disconnected — retrying');
    retryTimer = setTimeout(() => connect(true), RETRY_MS);
  }

  async function readStream(signal) {
    const res = await fetch('api/events', {
      headers: authHeaders({ Accept: 'text/event-stream' }), cache: 'no-store', signal: signal,
    });
    if (res.status === 401) return 'unauthorized';
    if (!res.ok || !res.body) return 'failed';
    setConnection(true, 'connected');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const feed = sseParser(handleEvent);
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return 'ended';
      feed(decoder.decode(chunk.value, { stream: true }));
    }
  }

  /**
   * Incremental SSE parser. Returns a function to feed text chunks; calls onEvent(name, data)
   * for each event terminated by a blank line. Comments and id:/retry: fields are ignored.
   */
  function sseParser(onEvent) {
    let buffer = '';
    let name = '';
    let data = [];
    return function feed(chunk) {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop();          // the last piece may be an incomplete line
      for (let line of lines) {
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) onEvent(name || 'message', data.join('\n'));
          name = '';
          data = [];
          continue;
        }
        if (line[0] === ':') continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value[0] === ' ') value = value.slice(1);
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      }
    };
  }

  function handleEvent(name, raw) {
    let payload;
    try { payload = JSON.parse(raw); } catch (e) { return; }   // malformed event: skip it
    try {
      if (name === 'history') onHistory(obj(payload));
      else if (name === 'snapshot') onSnapshot(obj(payload));
    } catch (err) {
      // A rendering bug must not tear down the stream; rethrow outside it so it stays visible.
      setTimeout(() => { throw err; });
    }
  }

  // ---------------------------------------------------------------- charts

  // Column store for all charts: column → field of a history/totals point. Column x holds the
  // time in seconds, because uPlot time scales expect seconds.
  const FIELDS = { tokens: 'tokens_per_s', requests: 'requests_per_s', errors: 'errors_per_s',
    p50: 'ttft_p50_ms', p99: 'ttft_p99_ms', replicaRequests: 'replica_requests_per_s',
    replicaP50: 'replica_ttft_p50_ms' };
  const KEYS = ['x'].concat(Object.keys(FIELDS));
  const points = {};
  KEYS.forEach((k) => { points[k] = []; });

  // Each chart: container id and its series as [label, column, colour].
  const CHARTS = [
    { id: 'chart-tokens', series: [['tokens/s', 'tokens', '#2563eb']] },
    // The ingresses' figures, and the replicas' own (every data plane, HAProxy's included).
    { id: 'chart-ttft', series: [['p50 ms', 'p50', '#059669'], ['p99 ms', 'p99', '#d97706'],
      ['replicas p50 ms', 'replicaP50', '#6ee7b7']] },
    { id: 'chart-requests', series: [['ingress requests/s', 'requests', '#7c3aed'],
      ['replicas requests/s', 'replicaRequests', '#c4b5fd']] },
    { id: 'chart-errors', series: [['errors/s', 'errors', '#dc2626']] },
  ];

  function pushPoint(p) {
    if (!isNum(p.at)) return;
    points.x.push(p.at / 1000);
    Object.keys(FIELDS).forEach((k) => points[k].push(numOrNull(p[FIELDS[k]])));   // null = gap
  }

  function trimPoints() {
    const extra = points.x.length - MAX_POINTS;
    if (extra > 0) KEYS.forEach((k) => points[k].splice(0, extra));
  }

  // A sample with no sample beside it (one request between idle seconds: TTFT has a value only
  // while requests arrive) makes no line, so it gets a dot; everything else stays a plain line.
  function loneSamples(u, seriesIdx, show) {
    if (show) return null;
    const ys = u.data[seriesIdx];
    const lone = [];
    for (let i = 0; i < ys.length; i++) {
      if (ys[i] != null && (i === 0 || ys[i - 1] == null) && (i === ys.length - 1 || ys[i + 1] == null)) {
        lone.push(i);
      }
    }
    return lone.length ? lone : null;
  }

  function chartOptions(def) {
    return {
      width: 480,
      height: 180,
      // Rates and latencies are never negative: pin y at 0 and keep a non-empty range when all zero.
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, isNum(max) && max > 0 ? max * 1.1 : 1] } },
      series: [{}].concat(def.series.map((s) =>
        ({ label: s[0], stroke: s[2], width: 1.5, points: { show: false, filter: loneSamples, size: 5 },
          value: (u, v) => fmt1(v) }))),
      axes: [{}, { size: 50 }],
    };
  }

  function updateCharts() {
    const haveUPlot = typeof window.uPlot === 'function';
    CHARTS.forEach((def) => {
      const el = $(def.id);
      // Copies, so uPlot never sees arrays that are later trimmed in place.
      const data = [points.x.slice()].concat(def.series.map((s) => points[s[1]].slice()));
      if (haveUPlot) {
        if (def.plot) def.plot.setData(data);
        else def.plot = new window.uPlot(chartOptions(def), data, el);
      }
      el.setAttribute('data-points', String(points.x.length));
    });
    const last = points.tokens.length ? points.tokens[points.tokens.length - 1] : null;
    $('chart-tokens').setAttribute('data-last', last === null ? '' : String(last));
  }

  // ---------------------------------------------------------------- event handlers

  let lastApps = [];

  function onHistory(history) {
    KEYS.forEach((k) => { points[k] = []; });
    arr(history.points).forEach((p) => pushPoint(obj(p)));
    trimPoints();
    updateCharts();
  }

  function onSnapshot(snap) {
    pushPoint(Object.assign({}, obj(snap.totals), { at: snap.at }));
    trimPoints();
    updateCharts();

    $('last-update').textContent = isNum(snap.at) ? new Date(snap.at).toLocaleTimeString() : '—';

    const banner = $('controller-error');
    banner.textContent = str(snap.controller_error) ? 'Controller unavailable: ' + str(snap.controller_error) : '';
    banner.hidden = !str(snap.controller_error);

    setHtml($('ingress-rejections'), rejections(obj(snap.rejections_per_s)));
    lastApps = arr(snap.applications).map(obj);
    renderMembers(obj(snap.cluster), str(snap.self), obj(snap.gpus));
    renderDeployments();
    renderReplicas(lastApps);
    renderActors(arr(snap.actors));
  }

  // ---------------------------------------------------------------- cluster

  function renderMembers(cluster, self, gpus) {
    const leader = str(cluster.leader);
    const gpusByNode = new Map(arr(gpus.nodes).map(obj).map((n) => [str(n.node), n]));
    const rows = arr(cluster.members).map(obj).map((m) => {
      const address = str(m.address);
      const tags = (address && address === self ? ' <span class="tag">this node</span>' : '') +
        (address && address === leader ? ' <span class="tag">leader</span>' : '');
      const reachable = m.reachable === true ? 'yes'
        : m.reachable === false ? '<span class="bad-mark" title="unreachable">✖ no</span>' : '—';
      return `<tr${m.reachable === false ? ' class="unreachable"' : ''}>` +
        `<td class="addr">${text(address)}${tags}</td>` +
        `<td>${arr(m.roles).map(esc).join(', ') || '—'}</td>` +
        `<td>${badge(m.status)}</td><td>${reachable}</td><td>${memberGpus(gpusByNode.get(address))}</td></tr>`;
    });
    if (rows.length === 0) rows.push('<tr><td colspan="5" class="empty">No members.</td></tr>');
    setHtml($('members').tBodies[0], rows.join(''));

    const singletons = obj(cluster.singletons);
    const items = ['controller', 'llm-router', 'capacity-queue'].map((name) => {
      const where = str(singletons[name]);
      return `<dt>${name}</dt><dd class="addr">${where ? esc(where) : '<span class="muted">none</span>'}</dd>`;
    });
    items.push(`<dt>unreachable</dt><dd>${fmtInt(cluster.unreachable)}</dd>`);
    const transport = str(cluster.transport);
    items.push(`<dt>cluster traffic</dt><dd id="transport">${transport === 'tls-tcp' ? 'mutual TLS'
      : transport === 'tcp' ? 'plain TCP' : '—'}</dd>`);
    const guard = str(cluster.api_guard);
    items.push(`<dt>controller API</dt><dd id="api-guard">${guard === 'api-token' ? 'its own token'
      : guard === 'cluster-token' ? 'the cluster token' : guard === 'none' ? 'no token' : '—'}</dd>`);
    setHtml($('singletons'), items.join(''));
  }

  /** "allocated of offered" for a replica node that offers GPUs; "—" for any other member. */
  function memberGpus(node) {
    if (!node || !isNum(node.offered)) return '—';
    return `${fmtInt(node.allocated)} of ${fmtInt(node.offered)} allocated`;
  }

  // ---------------------------------------------------------------- deployments & scaling

  const scaling = new Set();   // "<app>/<deployment>" keys with a PATCH in flight
  let holdRender = false;      // true while a pointer is pressed on a scale button
  let holdTimer = null;

  function deploymentKey(app, dep) { return str(app.name) + '/' + str(dep.name); }

  function rejections(byReason) {
    const parts = Object.keys(obj(byReason))
      .filter((reason) => isNum(byReason[reason]) && byReason[reason] > 0)
      .map((reason) => `${esc(reason)} ${fmtRate(byReason[reason])}`);
    return parts.length ? parts.join(', ') : 'none';
  }

  function capacity(cap) {
    if (!cap) return '—';
    const inFlight = numOrNull(cap.in_flight);
    const total = numOrNull(cap.capacity);
    const label = `${fmtInt(inFlight)} / ${fmtInt(total)} in flight`;
    if (inFlight === null || total === null || total <= 0) return label;
    // <meter> avoids inline styles; low/high thresholds colour it amber/red when near full.
    return `${label} <meter min="0" max="${total}" value="${Math.min(inFlight, total)}" ` +
      `low="${total * 0.7}" high="${total * 0.9}" optimum="0"></meter>`;
  }

  function scaleButtons(key, dep) {
    const target = numOrNull(dep.target_replicas);
    const autoscaled = dep.autoscaling !== null && dep.autoscaling !== undefined;
    const title = autoscaled ? ' title="autoscaled"' : target === null ? ' title="target unknown"' : '';
    const upOff = autoscaled || target === null || scaling.has(key);   // also off while a PATCH runs
    const downOff = upOff || target <= 0;
    const button = (cls, off, label) =>
      `<button type="button" class="${cls}" data-deployment="${esc(key)}"${off ? ' disabled' : ''}${title}>${label}</button>`;
    return button('scale-down', downOff, '−1') + button('scale-up', upOff, '+1');
  }

  function deploymentCard(app, dep) {
    const key = deploymentKey(app, dep);
    const byState = Object.keys(obj(dep.replicas_by_state))
      .map((s) => `${esc(s)} ${fmtInt(dep.replicas_by_state[s])}`).join(', ');
    const auto = dep.autoscaling ? obj(dep.autoscaling) : null;
    const autoText = auto
      ? `${fmtInt(auto.min_replicas)}–${fmtInt(auto.max_replicas)}, desired ${fmtInt(auto.desired_replicas)}`
      : 'off';
    return `<section class="deployment" data-deployment="${esc(key)}">
      <header><h3>${text(app.name)} / ${text(dep.name)}</h3>${badge(dep.status)}</header>
      ${str(dep.message) ? `<p class="message">${esc(dep.message)}</p>` : ''}
      <dl class="kv">
        <dt>model</dt><dd>${text(dep.model_id)}</dd>
        <dt>route</dt><dd>${text(app.route_prefix)}</dd>
        <dt>policy</dt><dd>${text(dep.policy)}</dd>
        <dt>replicas</dt><dd>${fmtInt(dep.current_replicas)} current / ${fmtInt(dep.target_replicas)} target` +
        `${byState ? ` <span class="muted">(${byState})</span>` : ''}</dd>
        <dt>autoscaling</dt><dd>${autoText}</dd>
        <dt>decisions</dt><dd>${fmtRate(dep.decisions_per_s)}</dd>
        <dt>503s</dt><dd>${rejections(dep.rejections_per_s)}</dd>
        <dt>affinity</dt><dd>${fmtPct(dep.affinity_rate)}</dd>
        <dt>capacity</dt><dd>${capacity(dep.capacity)}</dd>
      </dl>
      <div class="scale">${scaleButtons(key, dep)}</div>
    </section>`;
  }

  function renderDeployments() {
    if (holdRender) return;   // re-rendered when the pointer is released
    const cards = [];
    lastApps.forEach((app) => arr(app.deployments).map(obj).forEach((dep) => cards.push(deploymentCard(app, dep))));
    $('deployments-empty').hidden = cards.length > 0;

    // Keep keyboard focus on the same scale button across a re-render.
    const active = document.activeElement;
    const focused = active && active.matches && active.matches('#deployments button')
      ? { cls: active.className, key: active.getAttribute('data-deployment') } : null;
    if (!setHtml($('deployments'), cards.join('')) || !focused) return;
    const again = Array.from($('deployments').querySelectorAll('button'))
      .find((b) => b.className === focused.cls && b.getAttribute('data-deployment') === focused.key);
    if (again) again.focus();
  }

  function findDeployment(key) {
    for (const app of lastApps) {
      for (const dep of arr(app.deployments).map(obj)) {
        if (deploymentKey(app, dep) === key) return { app: app, dep: dep };
      }
    }
    return null;
  }

  /** Shows the server's message verbatim; which deployment it concerns goes in the tooltip. */
  function showScaleError(message, key) {
    const el = $('scale-error');
    el.textContent = message;
    el.title = message ? `scaling ${key} failed` : '';
    el.hidden = !message;
  }

  async function scale(key, delta) {
    const found = findDeployment(key);
    if (!found || !isNum(found.dep.target_replicas) || found.dep.autoscaling) return;
    const wanted = found.dep.target_replicas + delta;
    if (wanted < 0) return;
    const url = 'api/applications/' + encodeURIComponent(str(found.app.name)) +
      '/deployments/' + encodeURIComponent(str(found.dep.name));
    scaling.add(key);
    renderDeployments();
    try {
      const res = await fetch(url, {
        method: 'PATCH',
        headers: authHeaders({ 'Content-Type': 'application/json' }),
        body: JSON.stringify({ num_replicas: wanted }),
      });
      if (res.ok) {
        showScaleError('');
        // Optimistic: a quick second click builds on the new target until the next snapshot.
        found.dep.target_replicas = wanted;
      } else {
        showScaleError(await errorMessage(res), key);
        if (res.status === 401) askForToken();
      }
    } catch (err) {
      showScaleError(err && err.message ? err.message : 'network error', key);
    } finally {
      scaling.delete(key);
      renderDeployments();
    }
  }

  // Buttons are wired by delegation, so replacing the cards' HTML never drops a listener.
  function onDeploymentsClick(ev) {
    const button = ev.target.closest('button.scale-up, button.scale-down');
    if (!button || button.disabled) return;
    scale(button.getAttribute('data-deployment'), button.classList.contains('scale-up') ? 1 : -1);
  }

  // While a scale button is held down, pause card re-rendering so the press and release land on
  // the same element (otherwise the browser would not fire "click").
  function onPointerDown(ev) {
    if (!ev.target.closest('.scale button')) return;
    holdRender = true;
    clearTimeout(holdTimer);
    holdTimer = setTimeout(releaseHold, 3000);   // safety net if the release is never seen
  }
  function releaseHold() {
    if (!holdRender) return;
    clearTimeout(holdTimer);
    // Deferred so the click that follows pointerup is dispatched against the current DOM.
    setTimeout(() => { holdRender = false; renderDeployments(); }, 0);
  }

  // ---------------------------------------------------------------- replicas & actors

  function renderReplicas(apps) {
    const rows = [];
    apps.forEach((app) => arr(app.deployments).map(obj).forEach((dep) => {
      arr(dep.replicas).map(obj).forEach((r) => {
        rows.push(`<tr data-replica-id="${esc(str(r.replica_id))}">` +
          `<td>${esc(deploymentKey(app, dep))}</td><td class="addr">${text(r.replica_id)}</td>` +
          `<td class="addr">${text(r.node)}</td><td class="addr">${text(r.endpoint)}</td>` +
          `<td>${badge(r.state)}</td><td class="addr">${text(arr(r.gpus).join(','))}</td>` +
          `<td class="num">${fmtInt(r.ongoing)}</td>` +
          `<td class="num">${fmt1(r.ttft_p50_ms)}</td><td class="num">${fmt1(r.tokens_per_s)}</td></tr>`);
      });
    }));
    setHtml($('replicas').tBodies[0], rows.join(''));
    $('replicas-empty').hidden = rows.length > 0;
  }

  function renderActors(actors) {
    const rows = actors.map(obj).map((a) =>
      `<tr><td>${text(a.actor)}</td><td class="num">${fmt1(a.messages_per_s)}</td>` +
      `<td class="num">${fmtInt(a.mailbox_depth)}</td><td class="num">${fmt1(a.processing_p99_ms)}</td></tr>`);
    setHtml($('actors').tBodies[0], rows.join(''));
    $('actors-empty').hidden = rows.length > 0;
  }

  // ---------------------------------------------------------------- start

  function init() {
    const deployments = $('deployments');
    deployments.addEventListener('click', onDeploymentsClick);
    deployments.addEventListener('pointerdown', onPointerDown);
    window.addEventListener('pointerup', releaseHold);
    window.addEventListener('pointercancel', releaseHold);
    $('token-form').addEventListener('submit', onTokenSubmit);
    updateCharts();   // empty charts right away keep the layout stable
    connect(false);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
