import { entryIds, readDelivery, toItems, UnreadableDeliveryError } from './webhook-payload';

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

  it('messages: echoes are items of the recipient (human takeover), reads are items of the reader; deletions dropped; story replies recognised', () => {
    const items = toItems(7, entryId, {
      id: entryId,
      messaging: [
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm1', text: 'hello' } },
        { sender: { id: entryId }, recipient: { id: 'u1' }, message: { mid: 'm2', text: 'echo', is_echo: true } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm3', is_deleted: true } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, message: { mid: 'm4', text: '🔥', reply_to: { story: { id: 's1', url: 'https://x' } } } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, read: { watermark: 1 } },
        { sender: { id: 'u1' }, recipient: { id: entryId }, timestamp: 9, read: { mid: 'm2' } },
        { sender: { id: entryId }, recipient: { id: 'u1' }, message: { mid: 'm5', text: 'not an echo' } },
      ],
    });
    expect(items.map((i) => [i.dedup_key, i.kind, i.subject])).toEqual([
      ['message:m1', 'message', '7:u1'],
      ['echo:m2', 'echo', '7:u1'],
      ['message:m4', 'story_reply', '7:u1'],
      ['seen:u1:1', 'seen', '7:u1'],
      ['seen:u1:m2', 'seen', '7:u1'],
    ]);
    expect(items[1].payload).toMatchObject({ mid: 'm2', recipient_id: 'u1', text: 'echo' });
    expect(items[2].payload).toMatchObject({ story_id: 's1', text: '🔥', sender_id: 'u1' });
    expect(items[3].payload).toMatchObject({ sender_id: 'u1', mid: null, watermark: 1 });
    expect(items[4].payload).toMatchObject({ sender_id: 'u1', mid: 'm2', watermark: 9 });
  });

  it('postbacks: keyed by their mid, payload kept', () => {
    const [item] = toItems(7, entryId, { id: entryId, messaging: [{ sender: { id: 'u1' }, recipient: { id: entryId }, timestamp: 5, postback: { mid: 'p1', title: 'Go', payload: 'run:1:open' } }] });
    expect(item).toMatchObject({ dedup_key: 'postback:p1', kind: 'postback', payload: { payload: 'run:1:open', sender_id: 'u1' } });
  });
});

describe('reading a delivery', () => {
  const entryId = '1780000000000001';
  const comment = { field: 'comments', value: { id: 'c1', from: { id: 'u1' }, text: 'hi' } };

  it('reads the entries of a delivery with their items, and a delivery without entries as empty', () => {
    const [entry] = readDelivery({ object: 'instagram', entry: [{ id: entryId, time: 1, changes: [comment] }] });
    expect(entry).toMatchObject({ id: entryId, events: [{ dedup_key: 'comment:c1', kind: 'comment', person: 'u1' }] });
    expect(readDelivery({ object: 'instagram' })).toEqual([]);
    expect(readDelivery({ entry: [{ id: entryId }] })).toEqual([{ id: entryId, events: [] }]);
  });

  it.each([
    [[], 'the body must be a JSON object'],
    [{ entry: {} }, 'entry must be an array'],
    [{ entry: [null] }, 'entry.0 must be an object'],
    [{ entry: [{ id: entryId }, 'x'] }, 'entry.1 must be an object'],
    [{ entry: [{ id: { x: 1 } }] }, 'entry.0.id must be a string'],
    [{ entry: [{ id: entryId, changes: {} }] }, 'entry.0.changes must be an array'],
    [{ entry: [{ id: entryId, changes: [null] }] }, 'entry.0.changes.0 must be an object'],
    [{ entry: [{ id: entryId, changes: [comment, { field: 'comments', value: [] }] }] }, 'entry.0.changes.1.value must be an object'],
    [{ entry: [{ id: entryId, changes: [{ field: 'comments', value: { id: ['c'], from: { id: 'u1' } } }] }] }, 'entry.0.changes.0.value.id must be a string'],
    [{ entry: [{ id: entryId, changes: [{ field: 'comments', value: { id: 'c', from: 'u1' } }] }] }, 'entry.0.changes.0.value.from must be an object'],
    [{ entry: [{ id: entryId, messaging: {} }] }, 'entry.0.messaging must be an array'],
    [{ entry: [{ id: entryId, messaging: [null] }] }, 'entry.0.messaging.0 must be an object'],
    [{ entry: [{ id: entryId, messaging: [{ sender: { id: 'u1' }, message: 'hello' }] }] }, 'entry.0.messaging.0.message must be an object'],
    [{ entry: [{ id: entryId, messaging: [{ sender: { id: 'u1' }, postback: { mid: {} } }] }] }, 'entry.0.messaging.0.postback.mid must be a string'],
  ])('refuses %j: %s', (body, reason) => {
    let error: unknown;
    try {
      readDelivery(body);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnreadableDeliveryError);
    expect(error).toMatchObject({ reason, status: 400 });
  });

  it('ignores the fields it does not read, whatever their shape', () => {
    expect(readDelivery({ entry: [{ id: entryId, time: 'now', changes: [{ field: 'mentions', value: [] }], extra: [null] }] })).toEqual([{ id: entryId, events: [] }]);
  });

  it('names the entry ids leniently, before the delivery is judged', () => {
    expect(entryIds({ entry: [null, { id: 'a' }, { id: 17 }, { id: {} }, { id: 'a' }] })).toEqual(['a', '17']);
    expect(entryIds({ entry: {} })).toEqual([]);
    expect(entryIds(null)).toEqual([]);
  });
});
