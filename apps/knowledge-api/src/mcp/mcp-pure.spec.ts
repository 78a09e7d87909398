import type { WorkloadStatus } from '@platform/containers';
import { toLogEntry } from './log-entry';
import { stateOf, uptimeSeconds } from './mcp-state';
import { toolInfo, typeOf } from './tool-parameters';

const status = (state: WorkloadStatus['state'], engineState?: string): WorkloadStatus => ({
  provider: 'docker',
  target: 'knowledge-mcp',
  state,
  health: { status: 'none', ready: 0, desired: 1 },
  replicas: { desired: 1, current: 0, ready: 0 },
  containers: engineState ? [{ id: 'x', name: 'knowledge-mcp', image: 'i', engineState, state, health: 'none' }] : [],
});

describe('the state map', () => {
  it('maps the containers lib states onto the spec\'s', () => {
    expect(stateOf(status('running', 'running'))).toBe('running');
    expect(stateOf(status('unhealthy', 'running'))).toBe('running');
    expect(stateOf(status('starting', 'running'))).toBe('starting');
    expect(stateOf(status('starting', 'created'))).toBe('starting');
    expect(stateOf(status('stopping'))).toBe('stopping');
    expect(stateOf(status('stopped', 'exited'))).toBe('stopped');
    expect(stateOf(status('failed', 'dead'))).toBe('stopped');
    expect(stateOf(status('failed', 'removing'))).toBe('stopping');
  });

  it('counts uptime in whole seconds from the start, null without one', () => {
    expect(uptimeSeconds('2026-01-01T00:00:00.000Z', Date.parse('2026-01-01T00:01:30.900Z'))).toBe(90);
    expect(uptimeSeconds(null)).toBeNull();
    expect(uptimeSeconds('0001-01-01T00:00:00Z')).toBeNull();
    expect(uptimeSeconds('2026-01-01T00:00:10Z', Date.parse('2026-01-01T00:00:00Z'))).toBe(0);
  });
});

describe('log entries', () => {
  const at = '2026-01-01T00:00:00.000000001Z';
  it('reads pino JSON lines: level number and msg', () => {
    expect(toLogEntry({ stream: 'stdout', text: '{"level":40,"msg":"slow"}', timestamp: at })).toEqual({ timestamp: at, level: 'warning', message: 'slow' });
    expect(toLogEntry({ stream: 'stdout', text: '{"level":50,"msg":"boom"}', timestamp: at }).level).toBe('error');
    expect(toLogEntry({ stream: 'stdout', text: '{"level":20,"msg":"x"}', timestamp: at }).level).toBe('debug');
    expect(toLogEntry({ stream: 'stdout', text: '{"level":"warn","message":"named"}', timestamp: at })).toMatchObject({ level: 'warning', message: 'named' });
  });

  it('reads a level word in text lines, else the stream decides', () => {
    expect(toLogEntry({ stream: 'stdout', text: 'ERROR: refused', timestamp: at }).level).toBe('error');
    expect(toLogEntry({ stream: 'stdout', text: '[debug] tick', timestamp: at }).level).toBe('debug');
    expect(toLogEntry({ stream: 'stderr', text: 'plain', timestamp: at }).level).toBe('error');
    expect(toLogEntry({ stream: 'stdout', text: '{not json', timestamp: at })).toEqual({ timestamp: at, level: 'info', message: '{not json' });
    expect(toLogEntry({ stream: 'stdout', text: 'no time' }, 'fallback').timestamp).toBe('fallback');
  });
});

describe('tool parameters', () => {
  it('names each input property with its JSON Schema type and whether it is required', () => {
    const tool = {
      name: 'manage_project',
      description: 'Projects',
      _meta: { module: 'projects' },
      inputSchema: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: ['list', 'get'] },
          pinned: { type: 'boolean' },
          technical_sources: { type: 'array' },
          ref: { anyOf: [{ type: 'string' }, { type: 'object' }] },
          content: {},
        },
        required: ['action'],
      },
    };
    expect(toolInfo(tool)).toEqual({
      name: 'manage_project',
      description: 'Projects',
      module: 'projects',
      parameters: [
        { name: 'action', type: 'string', required: true },
        { name: 'pinned', type: 'boolean', required: false },
        { name: 'technical_sources', type: 'array', required: false },
        { name: 'ref', type: 'string|object', required: false },
        { name: 'content', type: 'any', required: false },
      ],
    });
    expect(typeOf({ type: ['string', 'null'] })).toBe('string|null');
    expect(toolInfo({ name: 'x', inputSchema: { type: 'object' } })).toEqual({ name: 'x', description: '', module: 'server', parameters: [] });
  });
});
