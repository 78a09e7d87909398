import { aRun, anAccount, anAutomation, fake } from '../../test/engine-fakes';
import type { ClicksService } from '../clicks/clicks.service';
import { ComposeMessage } from './compose-message';

function setup() {
  const clicks = fake<ClicksService>({ linkToken: jest.fn(async () => 'AbCdEf123456') });
  return { clicks, compose: new ComposeMessage(clicks) };
}

const links = [{ title: 'Open', url: 'https://example.com/guide', index: 0 }];

describe('ComposeMessage', () => {
  it('a text without buttons stays text', async () => {
    const s = setup();
    await expect(s.compose.execute(anAccount(), anAutomation(), aRun(), { kind: 'dm', step: 'email_ask', to: 'person', text: 'Your email?' })).resolves.toEqual({ text: 'Your email?' });
  });

  it('a postback button becomes a button template carrying the payload', async () => {
    const s = setup();
    const msg = await s.compose.execute(anAccount(), anAutomation(), aRun(), { kind: 'dm', step: 'opening', to: 'comment', text: 'Want it?', postback: { title: 'Send link', payload: 'run:42:open' } });
    expect(msg).toMatchObject({ attachment: { type: 'template', payload: { text: 'Want it?', buttons: [{ type: 'postback', title: 'Send link', payload: 'run:42:open' }] } } });
  });

  it('links are tracked /r/{code} URLs with track_clicks and a public base URL, else the target itself', async () => {
    const s = setup();
    const tracked = await s.compose.execute(anAccount(), anAutomation({ track_clicks: true }), aRun(), { kind: 'dm', step: 'link', to: 'person', text: 'Here', links });
    expect(tracked).toMatchObject({ attachment: { payload: { buttons: [{ type: 'web_url', title: 'Open', url: 'https://automation.example.com/r/AbCdEf123456' }] } } });
    expect(s.clicks.linkToken).toHaveBeenCalledWith(1, 7, '42', 0, 'https://example.com/guide', expect.any(Function));
    const plain = await s.compose.execute(anAccount({ public_base_url: null }), anAutomation({ track_clicks: true }), aRun(), { kind: 'dm', step: 'link', to: 'person', text: 'Here', links });
    expect(plain).toMatchObject({ attachment: { payload: { buttons: [{ url: 'https://example.com/guide' }] } } });
  });
});
