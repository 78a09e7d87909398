// The waiting page shown to a browser while a dynamic service starts, in several built-in themes.
// Everything is inline (styles, script; no font, image or script from elsewhere): the page works
// behind a firewall and leaks nothing. Its script polls the proxy's /health/<host> every
// `refreshSeconds` and reloads the page once the service answers ready, so the user lands on it
// without doing anything; a failed start is shown with its reason.

export interface ThemeStyle {
  readonly title: string;
  readonly css: string;
  /** the line printed above the service name */
  readonly banner: string;
}

export const BASE_CSS = `*{box-sizing:border-box}html,body{height:100%;margin:0}body{display:flex;align-items:center;justify-content:center;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:38rem;width:90%;padding:2rem;border-radius:.75rem}h1{margin:.25rem 0 1rem;font-size:1.8rem;word-break:break-word}
.bar{height:.5rem;border-radius:.25rem;overflow:hidden;margin:1.25rem 0 .5rem}.bar>i{display:block;height:100%;width:0;transition:width 1s linear}
.meta{font-size:.9rem;opacity:.8}.error{display:none;margin-top:1rem;padding:.75rem;border-radius:.5rem}.failed .error{display:block}.failed .bar{display:none}
button{margin-top:.75rem;font:inherit;padding:.35rem 1rem;border-radius:.35rem;border:1px solid currentColor;background:transparent;color:inherit;cursor:pointer}`;

export const THEMES = {
  'hacker-terminal': {
    title: 'booting',
    banner: '$ docker start',
    css: `body{background:#0c0c0c;color:#33ff66;font-family:ui-monospace,Menlo,Consolas,monospace}main{border:1px solid #1f7a3a;background:#050805}
.bar{background:#0f2a16}.bar>i{background:#33ff66}.error{background:#2a0f0f;color:#ff6b6b}h1::after{content:"_";animation:b 1s steps(1) infinite}@keyframes b{50%{opacity:0}}`,
  },
  ghost: {
    title: 'waking up',
    banner: 'Waking up',
    css: `body{background:#f5f5f7;color:#2c2c2e}main{background:#fff;box-shadow:0 10px 30px rgba(0,0,0,.08);text-align:center}
.bar{background:#e5e5ea}.bar>i{background:#8e8e93}.error{background:#fde8e8;color:#9b1c1c}`,
  },
  matrix: {
    title: 'loading',
    banner: 'Entering the construct',
    css: `body{background:#000;color:#00ff41;font-family:ui-monospace,Menlo,Consolas,monospace;background-image:repeating-linear-gradient(0deg,rgba(0,255,65,.05) 0 1px,transparent 1px 3px)}
main{background:rgba(0,10,0,.85);border:1px solid #003b00}.bar{background:#003b00}.bar>i{background:#00ff41}.error{background:#330000;color:#ff4141}`,
  },
  shuffle: {
    title: 'starting',
    banner: 'Shuffling things into place',
    css: `body{background:linear-gradient(135deg,#667eea,#764ba2);color:#fff}main{background:rgba(255,255,255,.12);backdrop-filter:blur(6px);text-align:center}
.bar{background:rgba(255,255,255,.25)}.bar>i{background:#fff}.error{background:rgba(120,0,0,.5)}`,
  },
  cyberpunk: {
    title: 'jacking in',
    banner: 'SYSTEM BOOT',
    css: `body{background:#0d0221;color:#fcee0a;font-family:ui-monospace,Menlo,Consolas,monospace}main{border:2px solid #ff2a6d;box-shadow:0 0 20px #ff2a6d55;background:#1a0633}
h1{color:#05d9e8;text-transform:uppercase}.bar{background:#2b0b4d}.bar>i{background:linear-gradient(90deg,#ff2a6d,#05d9e8)}.error{background:#3d0014;color:#ff2a6d}`,
  },
  synthwave: {
    title: 'starting',
    banner: 'Now loading',
    css: `body{background:linear-gradient(#2b1055,#7597de);color:#ffd6ff}main{background:rgba(43,16,85,.7);border-bottom:4px solid #ff71ce;text-align:center}
h1{color:#01cdfe}.bar{background:#3b1d6e}.bar>i{background:linear-gradient(90deg,#ff71ce,#01cdfe,#05ffa1)}.error{background:rgba(90,0,40,.7)}`,
  },
} satisfies Record<string, ThemeStyle>;

export type ThemeName = keyof typeof THEMES;

export interface WaitingPageOptions {
  service: string;
  hostname: string;
  theme: ThemeName;
  /** seconds */
  estimatedTime: number;
  /** seconds between health polls */
  refreshSeconds: number;
  /** the proxy's health URL for this host (relative to the page) */
  healthUrl: string;
}

/** The waiting page: the service name, the estimate, a progress bar, and the script that reloads it when ready. */
export function renderWaitingPage(o: WaitingPageOptions): string {
  const theme = THEMES[o.theme] ?? THEMES['hacker-terminal'];
  const name = escapeHtml(o.service);
  const config = JSON.stringify({ health: o.healthUrl, refreshMs: o.refreshSeconds * 1000, estimate: o.estimatedTime }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><noscript><meta http-equiv="refresh" content="${o.refreshSeconds}"></noscript><title>${name} is ${theme.title}…</title>
<style>${BASE_CSS}
${theme.css}</style></head>
<body data-theme="${o.theme}"><main id="box">
<div class="meta">${escapeHtml(theme.banner)}</div>
<h1 id="service">${name}</h1>
<p id="status">Starting ${name}. This page reloads by itself when it is ready.</p>
<div class="bar"><i id="progress"></i></div>
<div class="meta">Estimated start time: <span id="estimate">${o.estimatedTime}</span> s · elapsed <span id="elapsed">0</span> s</div>
<div class="error" id="error"><strong>The service could not be started.</strong> <span id="reason"></span><br><button id="retry" type="button">Try again</button></div>
</main>
<script>(function(){var c=${config};var t0=Date.now();var box=document.getElementById('box');
function tick(){var s=Math.floor((Date.now()-t0)/1000);document.getElementById('elapsed').textContent=s;
document.getElementById('progress').style.width=Math.min(95,Math.round(100*s/Math.max(1,c.estimate)))+'%';}
function poll(){fetch(c.health,{cache:'no-store',headers:{accept:'application/json'}}).then(function(r){return r.json().then(function(b){return{code:r.status,body:b};});})
.then(function(x){if(x.code===200&&x.body.status==='ready'){document.getElementById('progress').style.width='100%';document.getElementById('status').textContent='Ready, loading…';location.reload();return;}
if(x.body&&x.body.status==='failed'){box.className='failed';document.getElementById('reason').textContent=x.body.error||'';return;}setTimeout(poll,c.refreshMs);})
.catch(function(){setTimeout(poll,c.refreshMs);});}
document.getElementById('retry').onclick=function(){location.reload();};setInterval(tick,1000);tick();setTimeout(poll,c.refreshMs);})();</script>
</body></html>`;
}

export interface ErrorPageOptions {
  service: string;
  theme: ThemeName;
  reason: string;
}

/** A failed start, in the service's theme: the reason, and that reloading tries again. */
export function renderErrorPage(o: ErrorPageOptions): string {
  const theme = THEMES[o.theme] ?? THEMES['hacker-terminal'];
  const name = escapeHtml(o.service);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${name} could not be started</title>
<style>${BASE_CSS}
${theme.css}</style></head>
<body data-theme="${o.theme}"><main class="failed">
<div class="meta">${escapeHtml(theme.banner)}</div>
<h1>${name}</h1>
<div class="error"><strong>${name} could not be started.</strong> ${escapeHtml(o.reason)}<br>Reload this page to try again.
<br><button type="button" onclick="location.reload()">Try again</button></div>
</main></body></html>`;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
