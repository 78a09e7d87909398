// The waiting page of Sablier's dynamic strategy (GET /api/strategies/dynamic), in a built-in theme.
// The reverse-proxy plugin serves it on the user's own host and asks again on every reload, so the
// page reloads itself: a `<meta http-equiv="refresh">` every `refreshSeconds` (works without
// JavaScript); with JavaScript a countdown shows when. Everything inline.
import { BASE_CSS, escapeHtml, THEMES, type ThemeName } from './themes';

/** One instance as the page shows it (Sablier's template data: Name, Status, Error, CurrentReplicas, DesiredReplicas). */
export interface PageInstance {
  name: string;
  /** ready | not-ready | error */
  status: string;
  error?: string;
  currentReplicas: number;
  desiredReplicas: number;
}

/** The data every theme gets, built in or custom (Sablier's: DisplayName, ShowDetails, InstanceStates, SessionDuration, RefreshFrequency). */
export interface SessionPageData {
  displayName: string;
  showDetails: boolean;
  instances: PageInstance[];
  /** Go's rendering, e.g. "5m0s" */
  sessionDuration: string;
  refreshSeconds: number;
}

const PAGE_CSS = `ul.instances{list-style:none;padding:0;margin:1rem 0 0}ul.instances li{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0;border-top:1px solid rgba(127,127,127,.3)}
.st-ready{font-weight:bold}.st-error{color:#ff6b6b}`;

export function renderSessionPage(theme: ThemeName, d: SessionPageData): string {
  const style = THEMES[theme];
  const name = escapeHtml(d.displayName);
  const failed = d.instances.filter((i) => i.status === 'error');
  const details = d.showDetails
    ? `<ul class="instances" id="instances">${d.instances
        .map(
          (i) =>
            `<li data-instance="${escapeHtml(i.name)}"><span class="name">${escapeHtml(i.name)}</span><span class="st-${escapeHtml(i.status)}">${escapeHtml(i.status)} · ${i.currentReplicas}/${i.desiredReplicas}${
              i.error ? ` · ${escapeHtml(i.error)}` : ''
            }</span></li>`,
        )
        .join('')}</ul>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="refresh" content="${d.refreshSeconds}"><meta name="robots" content="noindex"><title>${name} is ${style.title}…</title>
<style>${BASE_CSS}
${style.css}
${PAGE_CSS}</style></head>
<body data-theme="${theme}"><main id="box"${failed.length ? ' class="failed"' : ''}>
<div class="meta">${escapeHtml(style.banner)}</div>
<h1 id="service">${name}</h1>
<p id="status">Starting ${name}. This page reloads every ${d.refreshSeconds} s until it is ready<noscript> (without JavaScript)</noscript>; the session lasts ${escapeHtml(d.sessionDuration)} without use.</p>
<div class="meta">Next check in <span id="countdown">${d.refreshSeconds}</span> s</div>
${details}
<div class="error" id="error"><strong>Could not be started.</strong> ${failed.map((i) => `${escapeHtml(i.name)}: ${escapeHtml(i.error ?? '')}`).join('; ')}</div>
</main>
<script>(function(){var n=${d.refreshSeconds};var el=document.getElementById('countdown');setInterval(function(){n=Math.max(0,n-1);el.textContent=n;if(n===0)location.reload();},1000);})();</script>
</body></html>`;
}

