/**
 * The error dashboard: one plain page, its script and its style, served by this service (no build
 * step, nothing from other origins; the Socket.IO client is the one the server itself serves at
 * `socket.io/socket.io.min.js`). Every URL is relative, so the page works at `/dashboard` and behind the
 * gateway at `/logistics/dashboard`. Text from the records is set with textContent (never as HTML).
 */

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error dashboard · logistics</title>
<link rel="stylesheet" href="dashboard/app.css">
</head>
<body>
<header><h1>Error dashboard</h1><span id="live" class="live off">offline</span><button id="logout" hidden>Log out</button></header>
<main>
<form id="login" autocomplete="on">
  <h2>Administrator login</h2>
  <label>Email <input id="email" name="email" type="email" required autocomplete="username"></label>
  <label>Password <input id="password" name="password" type="password" required autocomplete="current-password"></label>
  <button type="submit">Log in</button>
  <p id="login-error" class="error" role="alert"></p>
</form>
<section id="board" hidden>
  <p id="summary"></p>
  <table>
    <thead><tr><th>Message</th><th>Source</th><th>Severity</th><th>Occurrences</th><th>Last seen</th><th>State</th></tr></thead>
    <tbody id="errors"></tbody>
  </table>
  <p id="board-error" class="error" role="alert"></p>
</section>
</main>
<script src="socket.io/socket.io.min.js"></script>
<script src="dashboard/app.js"></script>
</body>
</html>
`;

export const DASHBOARD_CSS = `
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #202124; background: #f8f9fa; }
header { display: flex; align-items: center; gap: 12px; padding: 12px 20px; background: #fff; border-bottom: 1px solid #e0e0e0; }
header h1 { font-size: 18px; margin: 0; flex: 1; }
main { padding: 20px; }
form { max-width: 320px; display: grid; gap: 10px; background: #fff; padding: 20px; border: 1px solid #e0e0e0; border-radius: 8px; }
form h2 { margin: 0 0 4px; font-size: 16px; }
label { display: grid; gap: 4px; }
input, select, button { font: inherit; padding: 6px 8px; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { padding: 8px 10px; border-bottom: 1px solid #e0e0e0; text-align: left; vertical-align: top; }
th { font-size: 12px; color: #5f6368; text-transform: uppercase; }
tr.fresh { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: #fef7e0; } to { background: #fff; } }
.sev-critical { color: #c5221f; font-weight: bold; }
.sev-error { color: #c5221f; }
.sev-warning { color: #b06000; }
.error { color: #c5221f; min-height: 1em; }
.live { padding: 2px 8px; border-radius: 10px; font-size: 12px; }
.live.on { background: #e6f4ea; color: #137333; }
.live.off { background: #f1f3f4; color: #5f6368; }
`;

export const DASHBOARD_JS = `'use strict';
(function () {
  var base = location.pathname.replace(/dashboard\\/?$/, '');
  var token = sessionStorage.getItem('logistics.token');
  var socket = null;
  var rows = {};
  var STATES = ['open', 'fix proposed', 'resolved'];
  var $ = function (id) { return document.getElementById(id); };

  function api(method, path, body) {
    return fetch(base + path, {
      method: method,
      headers: Object.assign({ 'content-type': 'application/json' }, token ? { authorization: 'Bearer ' + token } : {}),
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (json) {
        if (res.status === 401) { showLogin('Your session has ended; log in again.'); }
        if (!res.ok) { throw new Error((json.error && json.error.message) || ('HTTP ' + res.status)); }
        return json;
      });
    });
  }

  function cell(text, cls) {
    var td = document.createElement('td');
    td.textContent = text == null ? '' : String(text);
    if (cls) td.className = cls;
    return td;
  }

  function render(record, fresh) {
    var tr = rows[record.id] || document.createElement('tr');
    tr.textContent = '';
    tr.dataset.id = record.id;
    tr.dataset.status = record.status;
    tr.appendChild(cell(record.message, 'message'));
    tr.appendChild(cell(record.source));
    tr.appendChild(cell(record.severity, 'sev-' + record.severity));
    tr.appendChild(cell(record.occurrences, 'occurrences'));
    tr.appendChild(cell(new Date(record.last_seen).toLocaleString()));
    var td = document.createElement('td');
    var select = document.createElement('select');
    select.setAttribute('aria-label', 'State');
    STATES.forEach(function (s) {
      var o = document.createElement('option');
      o.value = s; o.textContent = s; o.selected = s === record.status;
      select.appendChild(o);
    });
    select.addEventListener('change', function () {
      var wanted = select.value;
      api('PATCH', 'api/errors/' + encodeURIComponent(record.id), { status: wanted })
        .then(function (json) { render(json.record, false); $('board-error').textContent = ''; })
        .catch(function (err) { select.value = record.status; $('board-error').textContent = err.message; });
    });
    td.appendChild(select);
    tr.appendChild(td);
    if (!rows[record.id]) { $('errors').insertBefore(tr, $('errors').firstChild); rows[record.id] = tr; }
    if (fresh) { tr.classList.remove('fresh'); void tr.offsetWidth; tr.classList.add('fresh'); }
    $('summary').textContent = Object.keys(rows).length + ' error records';
  }

  function live(on) { $('live').textContent = on ? 'live' : 'offline'; $('live').className = 'live ' + (on ? 'on' : 'off'); }

  function connect() {
    if (socket) socket.disconnect();
    socket = io('/errors', { path: base + 'socket.io', auth: { token: token }, transports: ['websocket'] });
    socket.on('connect', function () { live(true); });
    socket.on('disconnect', function () { live(false); });
    socket.on('connect_error', function (err) { live(false); if (err && (err.message === 'unauthorized' || err.message === 'forbidden')) showLogin('Your session has ended; log in again.'); });
    socket.on('error_created', function (record) { render(record, true); });
    socket.on('error_updated', function (record) { render(record, true); });
    socket.on('session_ended', function () { showLogin('Your session has ended; log in again.'); });
  }

  function showBoard() {
    $('login').hidden = true; $('board').hidden = false; $('logout').hidden = false;
    api('GET', 'api/errors?limit=200').then(function (json) {
      json.errors.slice().reverse().forEach(function (r) { render(r, false); });
      connect();
    }).catch(function (err) { $('board-error').textContent = err.message; });
  }

  function showLogin(message) {
    token = null; sessionStorage.removeItem('logistics.token');
    if (socket) { socket.disconnect(); socket = null; }
    rows = {}; $('errors').textContent = '';
    $('login').hidden = false; $('board').hidden = true; $('logout').hidden = true;
    $('login-error').textContent = message || '';
  }

  $('login').addEventListener('submit', function (e) {
    e.preventDefault();
    $('login-error').textContent = '';
    fetch(base + 'dashboard/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: $('email').value, password: $('password').value }) })
      .then(function (res) { return res.json().then(function (json) { if (!res.ok) throw new Error((json.error && json.error.message) || 'Login failed'); return json; }); })
      .then(function (json) { token = json.access_token; sessionStorage.setItem('logistics.token', token); showBoard(); })
      .catch(function (err) { $('login-error').textContent = err.message; });
  });
  $('logout').addEventListener('click', function () { showLogin(''); });

  if (token) showBoard(); else showLogin('');
})();
`;
