/*
 * The windowpane dashboard (docs/dashboard.md). Plain browser JavaScript, no build step.
 *
 * Everything shown comes from the service's JSON API under /v1 (and /health), polled while the
 * tab is visible: the feed (/v1/dashboard/feed, totals from the service's meters) once a second,
 * /health every two seconds, the chosen window's top keys every two seconds, and the looked-up
 * key once a second. Rates are differences of two consecutive totals. Charts keep the last five
 * minutes. The first feed request (and the first after the tab was hidden) asks for the
 * service's history too (?history=true): the last five minutes of decisions and engine calls
 * per second, drawn at once; live points continue from the end of the history. When tokens are
 * configured, the token typed once is kept in this tab's sessionStorage and sent as
 * "Authorization: Bearer <token>".
 */
(function () {
  'use strict';

  var FEED_MS = 1000;
  var HEALTH_MS = 2000;
  var TOP_MS = 2000;
  var LOOKUP_MS = 1000;
  var KEEP = 300; // points: five minutes at one a second
  var COLORS = ['#2e7d32', '#c62828', '#4f7cff', '#b26a00', '#7b1fa2', '#00838f', '#5d4037'];

  var token = sessionStorage.getItem('windowpane.token');
  var chosen = null; // {kind: 'limiters' | 'counters' | 'stats', name, item}
  var lookupKey = '';
  var MIN_RATE_SECONDS = 0.25; // a rate over a shorter span waits for the next poll
  var decisions = {}; // limiter -> {xs, allowed, denied, base, totals, history}
  var backend = {xs: [], ops: {}, base: null, history: 0};
  var wantHistory = true; // ask the next feed request for the service's history
  var keySeries = null; // {key, xs, ys: [[...], ...]}
  var charts = {};

  function $(id) { return document.getElementById(id); }

  function Unauthorized() {}

  function api(path) {
    var headers = token ? {Authorization: 'Bearer ' + token} : {};
    return fetch(path, {headers: headers, cache: 'no-store'}).then(function (r) {
      if (r.status === 401) {
        $('token-form').hidden = false;
        $('feed-status').textContent = 'token needed';
        throw new Unauthorized();
      }
      return r.json().catch(function () { return null; }).then(function (body) {
        return {status: r.status, body: body};
      });
    });
  }

  function every(ms, task) {
    function run() {
      var next = function () { setTimeout(run, ms); };
      if (document.hidden) { next(); return; }
      Promise.resolve().then(task).catch(function (e) {
        if (!(e instanceof Unauthorized)) { $('feed-status').textContent = 'error: ' + e; }
      }).then(next);
    }
    run();
  }

  function push(arr, v) {
    arr.push(v);
    if (arr.length > KEEP) { arr.shift(); }
  }

  function fmt(n, digits) {
    if (n === null || n === undefined || Number.isNaN(n)) { return '–'; }
    return Number(n).toLocaleString('en-US', {maximumFractionDigits: digits === undefined ? 0 : digits});
  }

  // ---- charts (uPlot) ----

  function chart(id, labels) {
    var el = $(id);
    var existing = charts[id];
    if (existing && existing.labels.join() === labels.join()) { return existing.plot; }
    if (existing) { existing.plot.destroy(); }
    el.textContent = '';
    var series = [{}];
    labels.forEach(function (label, i) {
      series.push({label: label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true});
    });
    var plot = new uPlot({
      width: Math.max(300, el.clientWidth || 440),
      height: 200,
      series: series,
      scales: {x: {time: true}},
      axes: [{}, {size: 60}]
    }, [[]].concat(labels.map(function () { return []; })), el);
    charts[id] = {labels: labels, plot: plot};
    return plot;
  }

  function show(id, labels, xs, ys) {
    chart(id, labels).setData([xs.slice()].concat(ys.map(function (y) { return y.slice(); })));
    var max = 0;
    ys.forEach(function (y) { y.forEach(function (v) { if (v !== null && v > max) { max = v; } }); });
    $(id).dataset.points = String(xs.length);
    $(id).dataset.max = String(max); // for the browser test: the chart has drawn data
  }

  // ---- lists and choice ----

  function loadLists() {
    return Promise.all(['limiters', 'counters', 'stats'].map(function (kind) {
      return api('v1/' + kind).then(function (r) {
        var ul = $('list-' + kind);
        ul.textContent = '';
        (r.body[kind] || []).forEach(function (item) {
          var li = document.createElement('li');
          li.textContent = item.name;
          li.dataset.kind = kind;
          li.dataset.name = item.name;
          li.addEventListener('click', function () { choose(kind, item); });
          ul.appendChild(li);
        });
        return r.body[kind] || [];
      });
    })).then(function (lists) {
      $('token-form').hidden = true;
      var hash = decodeURIComponent(location.hash.replace(/^#/, '')).split('/');
      var kinds = ['limiters', 'counters', 'stats'];
      var wanted = kinds.indexOf(hash[0]);
      if (wanted >= 0) {
        var item = lists[wanted].find(function (i) { return i.name === hash.slice(1).join('/'); });
        if (item) { choose(hash[0], item); return; }
      }
      for (var k = 0; k < kinds.length; k++) {
        if (lists[k].length) { choose(kinds[k], lists[k][0]); return; }
      }
    });
  }

  function describe(kind, item) {
    if (kind === 'limiters') {
      return (item.shadow ? 'shadow limiter: ' : 'limiter: ') + item.limits.map(function (l) {
        return (item.limits.length > 1 ? l.name + ': ' : '') + l.permits + ' per ' + l.window
            + ' (' + l.algorithm + ')';
      }).join(' and ');
    }
    if (kind === 'counters') { return 'counter over ' + item.window + ' (' + item.algorithm + ')'; }
    return 'statistics over ' + item.window + ' (' + item.kind + ')';
  }

  function choose(kind, item) {
    chosen = {kind: kind, name: item.name, item: item};
    history.replaceState(null, '', '#' + kind + '/' + encodeURIComponent(item.name));
    document.querySelectorAll('nav li').forEach(function (li) {
      li.classList.toggle('chosen', li.dataset.kind === kind && li.dataset.name === item.name);
    });
    $('chosen-title').textContent = item.name;
    $('chosen-desc').textContent = describe(kind, item);
    $('panel-decisions').hidden = kind !== 'limiters';
    $('lookup-quantiles-row').hidden = kind !== 'stats';
    $('top-by').hidden = kind !== 'limiters';
    keySeries = null;
    resetLookup();
    renderDecisions();
    refreshTop();
    refreshLookup();
  }

  // ---- the feed: history, then decisions and backend latency live ----

  function newDecisions() {
    return {xs: [], allowed: [], denied: [], base: null, totals: null, liveMax: 0,
      history: {points: 0, allowed: 0, denied: 0}};
  }

  function bySecond(rows) {
    var at = {};
    rows.forEach(function (r) { at[r[0]] = r; });
    return at;
  }

  /*
   * The service's history (see docs/dashboard.md): per covered second, the decisions and engine
   * calls in it; a covered second without a row had none. Second s is drawn at its end, in this
   * browser's time (the service's time plus the difference of the two clocks), like a live
   * point, which is drawn at the end of the span its rate covers. The totals at the history's
   * end are the base of the first live rate, so no decision is drawn twice or lost between them.
   */
  function onHistory(hist, feed, now) {
    var shift = now - hist.nowMillis;
    var first = hist.toSecond - hist.seconds + 1;
    var end = (hist.toSecond + 1) * 1000 + shift;
    var xs = [];
    for (var s = first; s <= hist.toSecond; s++) { xs.push(((s + 1) * 1000 + shift) / 1000); }
    var kept = {};
    hist.limiters.forEach(function (l) { kept[l.name] = l; });
    decisions = {};
    feed.limiters.forEach(function (l) {
      var e = kept[l.name] || {allowed: 0, denied: 0, wouldDeny: 0, seconds: []};
      var at = bySecond(e.seconds);
      var h = decisions[l.name] = newDecisions();
      h.xs = xs.slice();
      for (var s = first; s <= hist.toSecond; s++) {
        var r = at[s];
        h.allowed.push(r ? r[1] : 0);
        h.denied.push(r ? r[2] + r[3] : 0);
        h.history.allowed += r ? r[1] : 0;
        h.history.denied += r ? r[2] + r[3] : 0;
      }
      h.history.points = xs.length;
      h.base = {t: end, allowed: e.allowed, denied: e.denied + e.wouldDeny};
    });
    backend = {xs: xs.slice(), ops: {}, base: {t: end, ops: {}}, history: xs.length};
    hist.backend.forEach(function (b) {
      var at = bySecond(b.seconds);
      var ys = backend.ops[b.operation] = [];
      for (var s = first; s <= hist.toSecond; s++) {
        var r = at[s];
        ys.push(r && r[1] > 0 ? r[3] / r[1] : null);
      }
      backend.base.ops[b.operation] = {calls: b.calls, totalMillis: b.totalMillis};
    });
  }

  function onFeed(feed, now) {
    $('engine-name').textContent = 'engine ' + feed.engine;
    feed.limiters.forEach(function (l) {
      var h = decisions[l.name] || (decisions[l.name] = newDecisions());
      var denied = l.denied + l.wouldDeny;
      h.totals = l;
      if (h.base) {
        var dt = (now - h.base.t) / 1000;
        if (dt < MIN_RATE_SECONDS) { return; }
        var allowedRate = Math.max(0, (l.allowed - h.base.allowed) / dt);
        var deniedRate = Math.max(0, (denied - h.base.denied) / dt);
        push(h.xs, now / 1000);
        push(h.allowed, allowedRate);
        push(h.denied, deniedRate);
        h.liveMax = Math.max(h.liveMax, allowedRate, deniedRate);
      }
      h.base = {t: now, allowed: l.allowed, denied: denied};
    });
    var base = backend.base;
    if (!base || (now - base.t) / 1000 >= MIN_RATE_SECONDS) {
      if (base) {
        push(backend.xs, now / 1000);
        var n = backend.xs.length;
        feed.backend.forEach(function (b) {
          var ys = backend.ops[b.operation] || (backend.ops[b.operation] = []);
          while (ys.length < n - 1) { ys.unshift(null); }
          var before = base.ops[b.operation] || {calls: 0, totalMillis: 0};
          var calls = b.calls - before.calls;
          push(ys, calls > 0 ? (b.totalMillis - before.totalMillis) / calls : null);
        });
        Object.keys(backend.ops).forEach(function (op) {
          var ys = backend.ops[op];
          while (ys.length < n) { ys.push(null); }
          while (ys.length > n) { ys.shift(); }
        });
      }
      backend.base = {t: now, ops: {}};
      feed.backend.forEach(function (b) { backend.base.ops[b.operation] = b; });
    }
    renderDecisions();
    renderBackend(feed);
    $('feed-status').textContent = 'live · updated ' + new Date(now).toLocaleTimeString();
  }

  function renderDecisions() {
    if (!chosen || chosen.kind !== 'limiters') { return; }
    var h = decisions[chosen.name];
    if (!h || !h.totals) { return; }
    var t = h.totals;
    $('allowed-total').textContent = String(t.allowed);
    $('denied-total').textContent = String(t.denied);
    $('would-deny-line').hidden = !t.shadow;
    $('would-deny-total').textContent = String(t.wouldDeny);
    show('decisions-chart', ['allowed/s', 'denied/s'], h.xs, [h.allowed, h.denied]);
    // for the browser test: what the service's history put on the chart, and the live maximum
    var d = $('decisions-chart').dataset;
    d.liveMax = String(h.liveMax);
    d.historyPoints = String(h.history.points);
    d.historyAllowed = String(h.history.allowed);
    d.historyDenied = String(h.history.denied);
  }

  function renderBackend(feed) {
    var ops = Object.keys(backend.ops).sort();
    if (ops.length) {
      show('backend-chart', ops, backend.xs, ops.map(function (op) { return backend.ops[op]; }));
      $('backend-chart').dataset.historyPoints = String(backend.history);
    }
    $('backend-status').textContent = feed.backend.map(function (b) {
      return b.operation + ': ' + fmt(b.calls) + ' calls, ' + fmt(b.errors) + ' failed, max '
          + fmt(b.maxMillis, 2) + ' ms';
    }).join(' · ') || 'no engine calls yet';
  }

  // ---- health: engine and failover ----

  function onHealth(r) {
    var h = r.body || {};
    var status = h.status || ('http ' + r.status);
    var badge = $('health-status');
    badge.textContent = 'health ' + status;
    badge.className = 'badge ' + status;
    $('engine-detail').textContent = h.engine + (h.active ? ' (active: ' + h.active + ')' : '');
    $('health-detail').textContent = status;
    $('probe-latency').textContent = h.backend && h.backend.latencyMillis !== undefined
        ? fmt(h.backend.latencyMillis, 2) + ' ms' : (h.backend && h.backend.error) || '–';
    var body = $('chain-table').tBodies[0];
    body.textContent = '';
    (h.chain || [{engine: h.engine, health: h.backend ? h.backend.status : status, signals: [],
      since: '', pendingReplay: 0}]).forEach(function (m) {
      var tr = body.insertRow();
      [m.engine, m.health, (m.signals || []).join(', ') || '–', m.since || '–',
        String(m.pendingReplay)].forEach(function (v) { tr.insertCell().textContent = v; });
    });
  }

  // ---- top keys ----

  function notAvailable(el, r, what) {
    el.textContent = 'not available' + (r.status === 501 && r.body && r.body.message
        ? ': ' + r.body.message : r.status === 404 ? ' (this service has no ' + what + ')' : '');
    el.className = 'na';
  }

  function refreshTop() {
    if (!chosen) { return; }
    var c = chosen;
    var path = 'v1/' + c.kind + '/' + encodeURIComponent(c.name) + '/top?n=10'
        + (c.kind === 'limiters' ? '&by=' + $('top-by').value : '');
    return api(path).then(function (r) {
      if (c !== chosen) { return; }
      var body = $('top-table').tBodies[0];
      var status = $('top-status');
      if (r.status !== 200) {
        body.textContent = '';
        $('top-table').dataset.rows = '0';
        notAvailable(status, r, 'top keys');
        return;
      }
      var keys = r.body.keys || [];
      var max = keys.length ? keys[0].count : 1;
      body.textContent = '';
      keys.forEach(function (k) {
        var tr = body.insertRow();
        tr.insertCell().textContent = k.key;
        tr.insertCell().textContent = String(k.count);
        tr.insertCell().textContent = String(k.maxError);
        var bar = document.createElement('div');
        bar.className = 'bar';
        bar.style.width = Math.max(1, Math.round(100 * k.count / Math.max(1, max))) + '%';
        tr.insertCell().appendChild(bar);
      });
      $('top-table').dataset.rows = String(keys.length);
      status.className = 'muted';
      status.textContent = keys.length ? 'estimated over the current window; the true count is'
          + ' between count - error and count' : 'no keys in the window';
    });
  }

  // ---- key lookup ----

  function resetLookup() {
    ['lookup-count', 'lookup-remaining', 'lookup-retry', 'lookup-quantiles'].forEach(function (id) {
      $(id).textContent = '–';
      $(id).className = '';
    });
    $('key-chart').dataset.points = '0';
  }

  function refreshLookup() {
    if (!chosen || !lookupKey) { return; }
    var c = chosen;
    var key = lookupKey;
    var base = 'v1/' + c.kind + '/' + encodeURIComponent(c.name);
    var q = 'key=' + encodeURIComponent(key);
    var path = c.kind === 'counters' ? base + '/count?' + q
        : c.kind === 'stats' ? base + '/summary?' + q + '&quantiles=0.5,0.99'
        : base + '/peek?' + q + '&permits=1';
    return api(path).then(function (r) {
      if (c !== chosen || key !== lookupKey) { return; }
      if (r.status !== 200) {
        resetLookup();
        if (r.status === 404 || r.status === 501) {
          notAvailable($('lookup-status'), r, c.kind === 'limiters' ? 'peek' : 'lookup');
        } else {
          $('lookup-status').className = 'na';
          $('lookup-status').textContent = (r.body && r.body.message) || 'http ' + r.status;
        }
        return;
      }
      var b = r.body;
      var now = Date.now() / 1000;
      if (!keySeries || keySeries.key !== key) { keySeries = {key: key, xs: [], ys: [[], []]}; }
      push(keySeries.xs, now);
      $('lookup-status').className = 'muted';
      $('lookup-status').textContent = 'key "' + key + '", looked up every second';
      if (c.kind === 'counters') {
        $('lookup-count').textContent = String(b.count);
        $('lookup-remaining').textContent = 'n/a (counter)';
        $('lookup-retry').textContent = 'n/a (counter)';
        push(keySeries.ys[0], b.count);
        show('key-chart', ['count'], keySeries.xs, [keySeries.ys[0]]);
      } else if (c.kind === 'stats') {
        var p50 = b.quantiles['0.5'];
        var p99 = b.quantiles['0.99'];
        $('lookup-count').textContent = String(b.count);
        $('lookup-remaining').textContent = 'n/a (statistics)';
        $('lookup-retry').textContent = 'n/a (statistics)';
        $('lookup-quantiles').textContent = fmt(p50, 3) + ' / ' + fmt(p99, 3);
        push(keySeries.ys[0], p50);
        push(keySeries.ys[1], p99);
        show('key-chart', ['p50', 'p99'], keySeries.xs, keySeries.ys);
      } else {
        $('lookup-count').textContent = b.count !== undefined ? String(b.count) : 'n/a (limiter)';
        $('lookup-remaining').textContent = String(b.remaining);
        $('lookup-retry').textContent = b.retryAfterMillis + ' ms';
        push(keySeries.ys[0], b.remaining);
        show('key-chart', ['remaining'], keySeries.xs, [keySeries.ys[0]]);
      }
    });
  }

  // ---- start ----

  $('token-form').addEventListener('submit', function (e) {
    e.preventDefault();
    token = $('token-input').value.trim();
    sessionStorage.setItem('windowpane.token', token);
    loadLists().catch(function () {});
  });
  $('lookup-form').addEventListener('submit', function (e) {
    e.preventDefault();
    lookupKey = $('lookup-key').value.trim();
    keySeries = null;
    resetLookup();
    refreshLookup();
  });
  $('top-by').addEventListener('change', refreshTop);

  loadLists().catch(function () {});
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) { wantHistory = true; } // fill what was missed while hidden
  });
  every(FEED_MS, function () {
    var withHistory = wantHistory;
    return api('v1/dashboard/feed' + (withHistory ? '?history=true' : '')).then(function (r) {
      if (r.status !== 200) { return; }
      var now = Date.now();
      if (withHistory && r.body.history) {
        onHistory(r.body.history, r.body, now);
        wantHistory = false;
      }
      onFeed(r.body, now);
    });
  });
  every(HEALTH_MS, function () { return api('health').then(onHealth); });
  every(TOP_MS, refreshTop);
  every(LOOKUP_MS, refreshLookup);
})();
