import type { ContainerEvent } from '@platform/containers';
import { parseCatalog } from '../catalog/catalog';
import { effectOf, servicesOfEvent } from './engine-events';

const { services } = parseCatalog(`services:
  - { name: web, hosts: [web.test], mode: async, upstream: 'http://web', provider: docker, target: web, healthCheck: /h }
  - { name: stack, hosts: [stack.test], mode: async, upstream: 'http://stack', provider: docker, target: 'label=com.docker.compose.project=stack', healthCheck: /h }
  - { name: any, hosts: [any.test], mode: async, upstream: 'http://any', provider: docker, target: 'label=tier', healthCheck: /h }
  - { name: k, hosts: [k.test], mode: async, upstream: 'http://k', provider: kubernetes, target: ml/web, healthCheck: /h }`);

const event = (name: string, labels: Record<string, string> = {}): ContainerEvent => ({ action: 'die', id: 'a'.repeat(64), name, labels, time: 0 });

describe('Docker events → managed services', () => {
  it.each([
    ['a container by name', event('web'), ['web']],
    ['a compose project by label value', event('db', { 'com.docker.compose.project': 'stack' }), ['stack']],
    ['another value of the label', event('db', { 'com.docker.compose.project': 'other' }), []],
    ['a label key alone', event('x', { tier: 'front' }), ['any']],
    ['a name of no service (Kubernetes targets never match)', event('ml'), []],
  ])('%s', (_what, e, names) => {
    expect(servicesOfEvent(services, e).map((s) => s.name)).toEqual(names);
  });

  it.each([
    ['die', 'stopped'],
    ['destroy', 'stopped'],
    ['stop', 'stopped'],
    ['start', 'started'],
    ['unpause', 'started'],
    ['create', 'none'],
    ['exec_start', 'none'],
  ])('%s → %s', (action, effect) => {
    expect(effectOf(action)).toBe(effect);
  });
});
