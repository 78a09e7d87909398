import { providerMessageId } from './provider-message-id';

describe('providerMessageId', () => {
  it.each<[string | null, string | null]>([
    ['250 Ok 0100018c2b5a7d3e-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d-000000', '0100018c2b5a7d3e-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d-000000'],
    ['250 2.0.0 Ok: queued as 4XyZ1k2Lmn', '4XyZ1k2Lmn'],
    ['250 2.0.0 OK queued as 17', '17'],
    ['250 OK id=1sX9aB-000Abc-2Q', '1sX9aB-000Abc-2Q'],
    ['250 2.0.0 <abc.def@mx.example> Message accepted', 'abc.def@mx.example'],
    ['250 Message accepted', null],
    ['250 OK', null],
    ['550 5.1.1 user unknown', null],
    [null, null],
  ])('%s → %s', (reply, expected) => {
    expect(providerMessageId(reply)).toBe(expected);
  });
});
