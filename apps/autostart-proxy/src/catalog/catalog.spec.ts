import { CatalogError, normalizeHost, parseCatalog } from './catalog';

const service = (extra = '') => `
  - name: whisper
    hosts: [Whisper.Example.com]
    mode: async
    upstream: http://whisper:8000
    provider: docker
    target: whisper
    healthCheck: /health
${extra}`;

function problems(text: string): string[] {
  try {
    parseCatalog(text);
  } catch (err) {
    if (err instanceof CatalogError) return err.problems;
    throw err;
  }
  throw new Error('accepted');
}

describe('catalog (AUTOSTART_CONFIG)', () => {
  it('reads a service with the defaults: idle 1800 s, the spec estimate by name, start timeout 120 s, hacker-terminal', () => {
    const c = parseCatalog(`services:${service()}`);
    expect(c.idleTimeout).toBe(1800);
    const s = c.byHost.get('whisper.example.com')!;
    expect(s).toMatchObject({ name: 'whisper', mode: 'async', provider: 'docker', target: 'whisper', healthCheck: '/health', estimatedTime: 30, idleTimeout: 1800, startTimeout: 120, theme: 'hacker-terminal' });
    expect(s.upstream.origin).toBe('http://whisper:8000');
  });

  it.each([
    ['whisper', 30], ['whisperx', 30], ['tika', 20], ['wordpress', 25], ['strapi', 20], ['streamlit', 15], ['dashy', 10],
    ['mkdocs', 5], ['nextcloud', 20], ['memvid', 15], ['ragflow', 45], ['rag-anything', 20], ['something-else', 30],
  ])('estimates %s at %i s unless configured', (name, seconds) => {
    const c = parseCatalog(`services:${service().replace('name: whisper', `name: ${name}`)}`);
    expect(c.byName.get(name)!.estimatedTime).toBe(seconds);
  });

  it('takes the global idle timeout, per-service overrides, short durations and extra keys', () => {
    const c = parseCatalog(`idleTimeout: 5\nlabel: extra\nservices:${service('    estimatedTime: 2\n    startTimeout: 1\n    note: free text')}${service('    idleTimeout: 7').replace(/whisper/gi, 'tika')}`);
    expect(c.byName.get('whisper')).toMatchObject({ idleTimeout: 5, estimatedTime: 2, startTimeout: 1 });
    expect(c.byName.get('tika')).toMatchObject({ idleTimeout: 7, estimatedTime: 20 });
  });

  it('names every problem at once', () => {
    const found = problems(`idleTimeout: 0
services:
  - name: Bad Name
    hosts: []
    mode: sync
    theme: neon
    upstream: ftp://x
    provider: podman
    healthCheck: health
    estimatedTime: 1.5
    startTimeout: -1`);
    expect(found).toEqual([
      expect.stringMatching(/^idleTimeout: must be a positive whole number/),
      expect.stringMatching(/name: required/),
      expect.stringMatching(/hosts: required/),
      expect.stringMatching(/mode: must be dynamic .*, async .* or blocking/),
      expect.stringMatching(/theme: unknown theme "neon"; known: hacker-terminal, ghost, matrix, shuffle, cyberpunk, synthwave/),
      expect.stringMatching(/upstream: must be an absolute http\(s\) URL/),
      expect.stringMatching(/provider: must be docker or kubernetes/),
      expect.stringMatching(/target: required/),
      expect.stringMatching(/healthCheck: required, a path .* starting with \//),
      expect.stringMatching(/estimatedTime: must be a positive whole number of seconds \(got 1.5\)/),
      expect.stringMatching(/startTimeout: must be a positive whole number of seconds \(got -1\)/),
    ]);
  });

  it('refuses a host served twice, a name listed twice, a malformed Kubernetes target, an upstream with a path', () => {
    expect(problems(`services:${service()}${service()}`)).toEqual([
      expect.stringMatching(/name: whisper is listed twice/),
      expect.stringMatching(/hosts: whisper.example.com is already served by whisper/),
    ]);
    expect(problems(`services:${service().replace('provider: docker', 'provider: kubernetes')}`)).toEqual([expect.stringMatching(/namespace\/deployment/)]);
    expect(problems(`services:${service().replace('http://whisper:8000', 'http://whisper:8000/api')}`)).toEqual([expect.stringMatching(/origin only/)]);
  });

  it('reads groups, readyAfter, displayName and the blocking mode with its timeout (default 60 s)', () => {
    const c = parseCatalog(
      `services:${service('    group: ml\n    readyAfter: 5\n    displayName: Whisper ASR')}${service('    group: ml').replace(/whisper/gi, 'tika').replace('mode: async', 'mode: blocking')}${service('    blockingTimeout: 10').replace(/whisper/gi, 'solo').replace('mode: async', 'mode: blocking')}`,
    );
    expect(c.byName.get('whisper')).toMatchObject({ group: 'ml', readyAfter: 5, displayName: 'Whisper ASR', blockingTimeout: 60, source: 'file' });
    expect(c.byName.get('tika')).toMatchObject({ group: 'ml', mode: 'blocking', readyAfter: 0, displayName: 'tika' });
    expect(c.byName.get('solo')).toMatchObject({ mode: 'blocking', blockingTimeout: 10, group: undefined });
    expect(c.groups.get('ml')!.map((s) => s.name)).toEqual(['whisper', 'tika']);
    expect([...c.groups.keys()]).toEqual(['ml']);
  });

  it('checks a theme against the known ones (custom themes included) and the new fields', () => {
    expect(parseCatalog(`services:${service('    theme: corporate')}`, 'x', { themes: new Set(['corporate']) }).byName.get('whisper')!.theme).toBe('corporate');
    expect(problems(`services:${service('    group: Bad Group\n    readyAfter: -1\n    displayName: ""\n    blockingTimeout: 0')}`)).toEqual([
      expect.stringMatching(/displayName: a non-empty text/),
      expect.stringMatching(/group: lower-case letters/),
      expect.stringMatching(/readyAfter: must be a positive whole number/),
      expect.stringMatching(/blockingTimeout: must be a positive whole number/),
    ]);
  });

  it('refuses what is not a catalog', () => {
    expect(problems('services: {}')).toEqual([expect.stringMatching(/services: must be a list/)]);
    expect(problems('- a\n- b')).toEqual([expect.stringMatching(/must be a mapping/)]);
    expect(problems('services: [')).toEqual([expect.stringMatching(/not valid YAML/)]);
  });

  it('normalizes hosts: case, port, trailing dot, IPv6 brackets', () => {
    expect(normalizeHost('Whisper.Example.COM:8443')).toBe('whisper.example.com');
    expect(normalizeHost('a.example.com.')).toBe('a.example.com');
    expect(normalizeHost('[::1]:80')).toBe('[::1]');
  });
});
