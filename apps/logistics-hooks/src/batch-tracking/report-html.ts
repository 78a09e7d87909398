/**
 * The HTML email report of a batch-track result: one table, inline CSS only (what Gmail, Outlook and
 * Apple Mail render: no <style> blocks, no classes, table layout, web-safe fonts), every value
 * escaped. Plain functions; the data is whatever the caller sent as `data` (the batch tracker's
 * output), read defensively.
 */

const COLORS: Record<string, { bg: string; fg: string; label: string }> = {
  on_time: { bg: '#e6f4ea', fg: '#137333', label: 'On time' },
  stopped: { bg: '#fef7e0', fg: '#b06000', label: 'Stopped' },
  delayed: { bg: '#fce8e6', fg: '#c5221f', label: 'Delayed' },
  expired: { bg: '#f1f3f4', fg: '#5f6368', label: 'Link expired' },
  not_found: { bg: '#f1f3f4', fg: '#5f6368', label: 'Not found' },
};

export function escapeHtml(value: unknown): string {
  const s = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function locationText(v: unknown): string {
  const l = obj(v);
  if (typeof l.name === 'string' && l.name) return l.name;
  if (typeof l.lat === 'number' && typeof l.lon === 'number') return `${l.lat.toFixed(4)}, ${l.lon.toFixed(4)}`;
  return typeof v === 'string' ? v : '—';
}

function dateText(v: unknown): string {
  if (typeof v !== 'string') return '—';
  const t = Date.parse(v);
  return Number.isNaN(t) ? v : new Date(t).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

const TD = 'padding:8px 10px;border-bottom:1px solid #e0e0e0;font-family:Arial,Helvetica,sans-serif;font-size:13px;color:#202124;vertical-align:top;';
const TH = 'padding:8px 10px;border-bottom:2px solid #c0c0c0;font-family:Arial,Helvetica,sans-serif;font-size:12px;color:#5f6368;text-align:left;text-transform:uppercase;';

export function renderBatchReport(data: unknown, opts: { title: string; generatedAt: Date }): string {
  const d = obj(data);
  const t = obj(d.totals);
  const shipments = Array.isArray(d.shipments) ? d.shipments : [];
  const rows = shipments
    .map((raw) => {
      const s = obj(raw);
      const status = typeof s.status === 'string' ? s.status : 'not_found';
      const c = COLORS[status] ?? { bg: '#f1f3f4', fg: '#5f6368', label: status };
      const containers = Array.isArray(s.containers) ? s.containers.join(', ') : s.containers;
      return (
        '<tr>' +
        `<td style="${TD}">${escapeHtml(s.unit ?? '—')}</td>` +
        `<td style="${TD}">${escapeHtml(containers || '—')}</td>` +
        `<td style="${TD}"><span style="display:inline-block;padding:2px 8px;border-radius:10px;background:${c.bg};color:${c.fg};font-weight:bold;">${escapeHtml(c.label)}</span></td>` +
        `<td style="${TD}">${escapeHtml(locationText(s.location))}</td>` +
        `<td style="${TD}">${typeof s.speed === 'number' ? `${escapeHtml(Math.round(s.speed))} km/h` : '—'}</td>` +
        `<td style="${TD}">${escapeHtml(s.driver ?? '—')}</td>` +
        `<td style="${TD}">${escapeHtml(dateText(s.eta))}</td>` +
        '</tr>'
      );
    })
    .join('');
  const tile = (label: string, value: number, color: string) =>
    `<td style="padding:12px 16px;background:#f8f9fa;border:1px solid #e0e0e0;font-family:Arial,Helvetica,sans-serif;"><div style="font-size:22px;font-weight:bold;color:${color};">${escapeHtml(value)}</div><div style="font-size:12px;color:#5f6368;">${escapeHtml(label)}</div></td>`;
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>' + escapeHtml(opts.title) + '</title></head>',
    '<body style="margin:0;padding:0;background:#ffffff;">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;max-width:900px;margin:0 auto;">',
    `<tr><td style="padding:16px 10px;font-family:Arial,Helvetica,sans-serif;"><h1 style="margin:0;font-size:20px;color:#202124;">${escapeHtml(opts.title)}</h1>` +
      `<p style="margin:4px 0 0;font-size:12px;color:#5f6368;">Generated ${escapeHtml(dateText(opts.generatedAt.toISOString()))}${typeof d.checked_at === 'string' ? ` · positions checked ${escapeHtml(dateText(d.checked_at))}` : ''}</p></td></tr>`,
    '<tr><td style="padding:0 10px 16px;"><table role="presentation" cellpadding="0" cellspacing="8" style="border-collapse:separate;"><tr>' +
      tile('Trucks', count(t.trucks), '#202124') +
      tile('On time', count(t.on_time), '#137333') +
      tile('Need attention', count(t.attention), '#c5221f') +
      '</tr></table></td></tr>',
    '<tr><td style="padding:0 10px 24px;"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;">',
    `<tr><th style="${TH}">Unit</th><th style="${TH}">Containers</th><th style="${TH}">Status</th><th style="${TH}">Location</th><th style="${TH}">Speed</th><th style="${TH}">Driver</th><th style="${TH}">ETA</th></tr>`,
    rows || `<tr><td colspan="7" style="${TD}">No shipments.</td></tr>`,
    '</table></td></tr>',
    '</table></body></html>',
  ].join('\n');
}
