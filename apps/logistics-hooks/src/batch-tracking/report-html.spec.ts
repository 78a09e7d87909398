import { escapeHtml, renderBatchReport } from './report-html';

const at = new Date('2026-11-28T12:00:00Z');

describe('batch report HTML', () => {
  it.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['"quoted" & \'single\'', '&quot;quoted&quot; &amp; &#39;single&#39;'],
    [null, ''],
    [42, '42'],
    [{ a: '<b>' }, '{&quot;a&quot;:&quot;&lt;b&gt;&quot;}'],
  ])('escapes %p', (value, expected) => {
    expect(escapeHtml(value)).toBe(expected);
  });

  it('renders totals and a row per shipment, inline styles only, every value escaped', () => {
    const html = renderBatchReport(
      {
        totals: { trucks: 2, on_time: 1, attention: 1 },
        checked_at: '2026-11-28T11:59:00Z',
        shipments: [
          { unit: 'TRK-1', containers: ['MSCU1234566'], status: 'on_time', location: { lat: 19.4326, lon: -99.1332, name: null }, speed: 61.6, driver: 'Ana', eta: '2026-11-28T18:00:00Z' },
          { unit: '<img src=x onerror=alert(1)>', containers: [], status: 'delayed', location: { name: 'Km 45 "A" & B' }, speed: null, driver: null, eta: null },
        ],
      },
      { title: 'Fleet <report>', generatedAt: at },
    );
    expect(html).toContain('<title>Fleet &lt;report&gt;</title>');
    expect(html).toContain('TRK-1');
    expect(html).toContain('19.4326, -99.1332');
    expect(html).toContain('62 km/h');
    expect(html).toContain('2026-11-28 18:00 UTC');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Km 45 &quot;A&quot; &amp; B');
    expect(html).toContain('>Delayed<');
    expect(html).not.toMatch(/<img|<style|class=/);
    expect(html.match(/<tr>/g)!.length).toBeGreaterThanOrEqual(4);
  });

  it('renders whatever shape it is given without failing', () => {
    for (const data of [null, 'x', [], { shipments: 'no' }, { totals: { trucks: 'x' }, shipments: [null, 1, { status: 'weird' }] }]) {
      expect(renderBatchReport(data, { title: 'T', generatedAt: at })).toContain('<!DOCTYPE html>');
    }
    expect(renderBatchReport({}, { title: 'T', generatedAt: at })).toContain('No shipments.');
  });
});
