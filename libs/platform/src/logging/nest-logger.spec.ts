import { PlatformNestLogger } from './nest-logger';

function recorder() {
  const calls: [string, ...unknown[]][] = [];
  const level =
    (name: string) =>
    (...args: unknown[]) =>
      calls.push([name, ...args]);
  const inner = { log: level('log'), error: level('error'), warn: level('warn'), debug: level('debug'), verbose: level('verbose'), fatal: level('fatal') };
  return { logger: new PlatformNestLogger(inner), calls };
}

describe('PlatformNestLogger', () => {
  it.each(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'WebSocketsController'])('logs the start-up lines of %s at debug', (context) => {
    const { logger, calls } = recorder();
    logger.log('chatter', context);
    expect(calls).toEqual([['debug', 'chatter', context]]);
  });

  it('keeps the info lines of every other context, and lines without one', () => {
    const { logger, calls } = recorder();
    logger.log('applied 2 migration(s)', 'DatabaseModule');
    logger.log({ body: 1 }, 'echoing', 'EchoController');
    logger.log('no context');
    expect(calls).toEqual([
      ['log', 'applied 2 migration(s)', 'DatabaseModule'],
      ['log', { body: 1 }, 'echoing', 'EchoController'],
      ['log', 'no context'],
    ]);
  });

  it('keeps warnings and errors of the start-up contexts', () => {
    const { logger, calls } = recorder();
    logger.warn('duplicate route', 'RouterExplorer');
    logger.error('cannot resolve', 'stack', 'InstanceLoader');
    logger.fatal('gone', 'NestApplication');
    logger.debug('d', 'NestFactory');
    logger.verbose('v', 'NestFactory');
    expect(calls).toEqual([
      ['warn', 'duplicate route', 'RouterExplorer'],
      ['error', 'cannot resolve', 'stack', 'InstanceLoader'],
      ['fatal', 'gone', 'NestApplication'],
      ['debug', 'd', 'NestFactory'],
      ['verbose', 'v', 'NestFactory'],
    ]);
  });
});
