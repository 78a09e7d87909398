// Baseline processes, run with `node -e <source>` (PORT, and for the proxy UPSTREAM and PREFIX), so
// that the scenarios of tools/bench and the app suites measure against the same floor.

/** A bare Node HTTP server answering like /healthz: the floor every scenario is measured against. */
export const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ status: 'ok' });
http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');`;

/**
 * Run with `node -e` (PORT; UPSTREAM, and PREFIX to strip, '' for none).
 * The least a node:http reverse proxy does (route by prefix, keep-alive upstream agent, headers copied
 * as they are, bodies streamed both ways; no header rewriting, request ids, timeouts or metrics): the
 * floor of a proxy hop on this machine, to tell the gateway's own cost from the cost of any hop.
 */
export const BARE_PROXY = `
const http = require('node:http');
const upstream = new URL(process.env.UPSTREAM);
const prefix = process.env.PREFIX;
const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
http.createServer((req, res) => {
  const path = req.url.startsWith(prefix) ? req.url.slice(prefix.length) || '/' : req.url;
  const up = http.request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers, agent }, (upRes) => {
    res.writeHead(upRes.statusCode, upRes.headers);
    upRes.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
}).listen(Number(process.env.PORT), '127.0.0.1');`;
