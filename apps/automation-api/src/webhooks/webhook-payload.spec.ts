import { toItems } from './webhooks.service';

describe('webhook payload → work items', () => {
  const entryId = '1780000000000001';

  it('comments: keyed by comment id, own comments dropped, parent kept', () => {
    const items = toItems(7, entryId, {
      id: entryId,
      changes: [
        { field: 'comments', value: { id: 'c1', from: { id: 'u1', username: 'ann' }, text: 'hi', media: { id: 'm1' } } },
        { field: 'comments', value: { id: 'c2', from: { id: entryId, username: 'brand' }, text: 'our reply', media: { id: 'm1' }, parent_id: 'c1' } },
        { field: 'live_comments', value: { id: 'c3', from: { id: 'u2' }, text: 'live', media: { id: 'm2' }, parent_id: 'c9' } },
        { field: 'mentions', value: { id: 'x' } },
      ],
    });
    expect(items.map((i) => [i.dedup_key, i.kind, i.subject])).toEqual([
      ['comment:c1', 'comment', '7:u1'],
      ['comment:c3', 'comment', '7:u2'],
    ]);
    expect(items[1].payload).toMatchObject({ parent_id: 'c9', media_id: 'm2', from: { id: 'u2', username: null } });
  });

  it('messages: echoes, deletions and own messages dropped; story replies recognised', () => {
    const items = toItems(7, entryId, {
      id: entryId,
      messaging: [
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm1', text: 'hello' } },
        { sender: { id: entryId }, recipient: { id: 'u1' }, message: { mid: 'm2', text: 'echo', is_echo: true } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm3', is_deleted: true } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm4', text: '🔥', reply_to: { story: { id: 's1', url: 'https://x' } } } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, read: { watermark: 1 } },
      ],
    });
    expect(items.map((i) => [i.dedup_key, i.kind])).toEqual([
      ['message:m1', 'message'],
      ['message:m4', 'story_reply'],
    ]);
    expect(items[1].payload).toMatchObject({ story_id: 's1', text: '🔥', sender_id: 'u1' });
  });

  it('postbacks: keyed by their mid, payload kept', () => {
    const [item] = toItems(7, entryId, { id: entryId, messaging: [{ sender: { id: 'u1' }, recipient: { id: entryId }, timestamp: 5, postback: { mid: 'p1', title: 'Go', payload: 'run:1:open' } }] });
    expect(item).toMatchObject({ dedup_key: 'postback:p1', kind: 'postback', payload: { payload: 'run:1:open', sender_id: 'u1' } });
  });
});
