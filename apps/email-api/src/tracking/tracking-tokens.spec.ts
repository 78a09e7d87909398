import { addTracking, MAX_TRACKED_LINKS, TrackingTokens } from './tracking-tokens';
import { clickFlag, openFlag } from './bot-rules';

const tokens = new TrackingTokens(Buffer.from('k'.repeat(32)));
const other = new TrackingTokens(Buffer.from('x'.repeat(32)));
const ID = 'eml_0a1b2c3d4e5f6g7h8i9j';

describe('TrackingTokens', () => {
  it('verifies its own pixel and link tokens', () => {
    expect(tokens.verifyOpen(tokens.open(ID))).toBe(ID);
    expect(tokens.verifyClick(tokens.click(ID, 3))).toEqual({ emailId: ID, index: 3 });
  });

  it('refuses tampered ids, indexes, kinds and other keys', () => {
    const open = tokens.open(ID);
    const click = tokens.click(ID, 3);
    expect(tokens.verifyOpen(open.replace('eml_0', 'eml_1'))).toBeNull();
    expect(tokens.verifyClick(click.replace('.3.', '.4.'))).toBeNull();
    expect(tokens.verifyClick(`${ID}.0.${open.split('.')[1]}`)).toBeNull(); // a pixel signature is no link signature
    expect(tokens.verifyOpen(other.open(ID))).toBeNull();
    expect(tokens.verifyOpen('nonsense')).toBeNull();
    expect(tokens.verifyClick(`${ID}.01.${click.split('.')[2]}`)).toBeNull();
  });
});

describe('addTracking', () => {
  const track = { link: (i: number) => `https://t.test/c/${i}`, pixel: 'https://t.test/o', keep: (u: string) => u.startsWith('https://t.test/unsubscribe/') };

  it('rewrites each distinct http(s) link once, keeps the unsubscribe link and others, adds the pixel before </body>', () => {
    const html =
      '<html><body><a href="https://a.test/x?a=1&amp;b=2">A</a> <a class="k" href=\'http://b.test/\'>B</a> <a href="https://a.test/x?a=1&amp;b=2">again</a>' +
      '<a href="mailto:x@y.test">m</a><a href="https://t.test/unsubscribe/cnt_1.sig">u</a></body></html>';
    const out = addTracking(html, track);
    expect(out.links).toEqual(['https://a.test/x?a=1&b=2', 'http://b.test/']);
    expect(out.html).toBe(
      '<html><body><a href="https://t.test/c/0">A</a> <a class="k" href=\'https://t.test/c/1\'>B</a> <a href="https://t.test/c/0">again</a>' +
        '<a href="mailto:x@y.test">m</a><a href="https://t.test/unsubscribe/cnt_1.sig">u</a>' +
        '<img src="https://t.test/o" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" /></body></html>',
    );
  });

  it('appends the pixel to a fragment and caps the tracked links', () => {
    const html = Array.from({ length: MAX_TRACKED_LINKS + 5 }, (_, i) => `<a href="https://l.test/${i}">${i}</a>`).join('');
    const out = addTracking(html, track);
    expect(out.links).toHaveLength(MAX_TRACKED_LINKS);
    expect(out.html).toContain(`href="https://l.test/${MAX_TRACKED_LINKS + 4}"`);
    expect(out.html.endsWith('border:0" />')).toBe(true);
  });
});

describe('bot rules', () => {
  it.each([
    ['Mozilla/5.0', '203.0.113.9', 'privacy_proxy'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15', '17.58.1.2', 'privacy_proxy'],
    ['Mozilla/5.0 (compatible; YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html)', '203.0.113.9', 'privacy_proxy'],
    ['Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)', '66.249.84.1', null],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148', '198.51.100.7', null],
  ])('open by %s from %s: %s', (ua, ip, flag) => {
    expect(openFlag(ua, ip)).toBe(flag);
  });

  it.each([
    ['HEAD', 'Mozilla/5.0 (Windows NT 10.0)', 'scanner'],
    ['GET', undefined, 'scanner'],
    ['GET', 'Mozilla/5.0 (compatible; Barracuda Sentinel)', 'scanner'],
    ['GET', 'python-requests/2.31', 'scanner'],
    ['GET', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120 Safari/537.36', null],
  ])('%s click by %s: %s', (method, ua, flag) => {
    expect(clickFlag(method, ua)).toBe(flag);
  });
});
