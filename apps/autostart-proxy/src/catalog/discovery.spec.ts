import { parseCatalog } from './catalog';
import { labelSeconds, mergeServices, servicesFromLabels, type LabelledWorkload } from './discovery';

const ctx = { themes: new Set(['hacker-terminal', 'ghost', 'corporate']) };
const docker = (name: string, labels: Record<string, string>): LabelledWorkload => ({ provider: 'docker', name, labels: { 'autostart.enable': 'true', ...labels } });

describe('discovery from labels and annotations', () => {
  it('reads a container: defaults as Sablier (dynamic), upstream from the port, durations in seconds or Go syntax', () => {
    const { services, problems } = servicesFromLabels(
      [
        docker('Whisper', {
          'autostart.port': '8000',
          'autostart.hosts': 'whisper.test, asr.test',
          'autostart.group': 'ml',
          'autostart.theme': 'corporate',
          'autostart.display-name': 'Speech',
          'autostart.idle-timeout': '5m',
          'autostart.estimated-time': '45',
          'autostart.ready-after': '1m30s',
          'autostart.health-check': '/health',
        }),
      ],
      1800,
      ctx,
    );
    expect(problems).toEqual([]);
    expect(services[0]).toMatchObject({
      name: 'whisper',
      hosts: ['whisper.test', 'asr.test'],
      mode: 'dynamic',
      provider: 'docker',
      target: 'Whisper',
      group: 'ml',
      theme: 'corporate',
      displayName: 'Speech',
      idleTimeout: 300,
      estimatedTime: 45,
      readyAfter: 90,
      healthCheck: '/health',
      source: 'docker',
    });
    expect(services[0].upstream.origin).toBe('http://whisper:8000');
  });

  it('reads Kubernetes annotations: namespace/name targets, the Service DNS name, no hosts needed', () => {
    const { services } = servicesFromLabels(
      [
        { provider: 'kubernetes', name: 'ragflow', namespace: 'ml', kind: 'deployment', labels: { 'autostart.enable': 'true', 'autostart.port': '80', 'autostart.mode': 'blocking' } },
        { provider: 'kubernetes', name: 'db', namespace: 'ml', kind: 'statefulset', labels: { 'autostart.enable': 'true', 'autostart.upstream': 'http://db:5432' } },
      ],
      600,
      ctx,
    );
    expect(services.map((s) => [s.name, s.target, s.upstream.origin, s.mode, s.hosts, s.idleTimeout, s.source])).toEqual([
      ['ragflow', 'ml/ragflow', 'http://ragflow.ml.svc', 'blocking', [], 600, 'kubernetes'],
      ['db', 'ml/statefulset/db', 'http://db:5432', 'dynamic', [], 600, 'kubernetes'],
    ]);
  });

  it('skips what is not enabled and names what is wrong, workload by workload', () => {
    const { services, problems } = servicesFromLabels(
      [
        docker('off', { 'autostart.enable': 'false', 'autostart.port': '80' }),
        docker('noport', {}),
        docker('badmode', { 'autostart.port': '80', 'autostart.mode': 'lazy', 'autostart.idle-timeout': 'soon' }),
        docker('dup', { 'autostart.port': '80', 'autostart.name': 'same' }),
        docker('dup2', { 'autostart.port': '80', 'autostart.name': 'same' }),
      ],
      1800,
      ctx,
    );
    expect(services.map((s) => s.name)).toEqual(['same']);
    expect(problems).toEqual([
      'container noport: autostart.upstream (or autostart.port) is required',
      expect.stringMatching(/^container noport\.upstream: required/),
      expect.stringMatching(/^container badmode\.mode: must be dynamic/),
      expect.stringMatching(/^container badmode\.idleTimeout: must be a positive whole number of seconds \(got "soon"\)/),
      'container dup2: the name same is declared twice',
    ]);
  });

  it.each([
    ['90', 90],
    ['5m', 300],
    ['1500ms', 2],
    ['soon', 'soon'],
  ])('label duration %s → %p', (text, seconds) => {
    expect(labelSeconds(text)).toBe(seconds);
  });

  it('the file wins on a name or a host; the rest is added', () => {
    const file = parseCatalog(`services:
  - { name: web, hosts: [web.test], mode: async, upstream: 'http://web', provider: docker, target: web, healthCheck: /h }`).services;
    const found = servicesFromLabels(
      [docker('web', { 'autostart.port': '80', 'autostart.hosts': 'other.test' }), docker('x', { 'autostart.port': '80', 'autostart.hosts': 'web.test' }), docker('y', { 'autostart.port': '80' })],
      1800,
      ctx,
    ).services;
    const merged = mergeServices(file, found);
    expect(merged.services.map((s) => `${s.name}:${s.source}:${s.hosts.join(',')}`)).toEqual(['web:file:web.test', 'y:docker:']);
    expect(merged.dropped).toEqual([expect.stringContaining('web (docker): name web'), expect.stringContaining('x (docker): host web.test')]);
  });
});
