import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { dropAnsweredStreams } from './web-bridge';

type Entry = { resolveJson?: (answer: Response) => void; cleanup?: () => void };

describe('dropAnsweredStreams', () => {
  it('drops a JSON-mode stream entry as it answers, leaves a pending one and SSE entries alone', () => {
    const streams = new Map<string, Entry>();
    const transport = { _streamMapping: streams } as unknown as WebStandardStreamableHTTPServerTransport;
    dropAnsweredStreams(transport);
    const answered: Response[] = [];
    streams.set('a', { resolveJson: (r) => answered.push(r) });
    streams.set('b', { resolveJson: (r) => answered.push(r) });
    streams.set('sse', { cleanup: () => undefined });
    const answer = new Response('{}');
    streams.get('a')!.resolveJson!(answer);
    expect(answered).toEqual([answer]);
    expect([...streams.keys()]).toEqual(['b', 'sse']);
  });

  it('leaves a transport without the map alone', () => {
    expect(() => dropAnsweredStreams({} as WebStandardStreamableHTTPServerTransport)).not.toThrow();
  });
});
