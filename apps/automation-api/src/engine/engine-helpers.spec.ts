import { buttonTemplate } from '../graph/graph-client';
import { mentions, templateAsText } from './engine-helpers';

describe('templateAsText', () => {
  it('puts every link button inline as "Title: URL" under the text', () => {
    const t = buttonTemplate('Your guide', [
      { type: 'web_url', title: 'Open', url: 'https://x.example/r/AbC123' },
      { type: 'web_url', title: 'Shop', url: 'https://shop.example/' },
    ]) as Parameters<typeof templateAsText>[0];
    expect(templateAsText(t)).toBe('Your guide\n\nOpen: https://x.example/r/AbC123\nShop: https://shop.example/');
  });

  it('turns a postback button into a reply instruction', () => {
    const t = buttonTemplate('Want it?', [{ type: 'postback', title: 'Send link', payload: 'run:1:open' }]) as Parameters<typeof templateAsText>[0];
    expect(templateAsText(t)).toBe('Want it?\n\nReply "Send link" to continue.');
  });
});

describe('mentions', () => {
  it('finds a whole @handle, case-insensitively, also before punctuation', () => {
    expect(mentions('@Jane thanks', 'jane')).toBe(true);
    expect(mentions('thanks @jane.', 'jane')).toBe(true);
    expect(mentions('hi (@ivy.shop)', 'Ivy.Shop')).toBe(true);
  });

  it('does not match a longer handle, an email or a bare name', () => {
    expect(mentions('@janedoe thanks', 'jane')).toBe(false);
    expect(mentions('@jane.doe thanks', 'jane')).toBe(false);
    expect(mentions('mail me at x@jane', 'jane')).toBe(false);
    expect(mentions('jane thanks', 'jane')).toBe(false);
    expect(mentions('@a+b', 'a+b')).toBe(true);
  });
});
