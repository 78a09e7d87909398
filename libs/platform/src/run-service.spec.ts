import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { IsString } from 'class-validator';
import { BaseConfig } from './config/base.config';
import { RequiredInProduction } from './config/required-in-production';
import { runService } from './run-service';
import type { ServiceDefinition } from './service-definition';
import { MIGRATION_RUNNER, SERVICE_MODE } from './tokens';

class ToolConfig extends BaseConfig {
  @IsString()
  @RequiredInProduction()
  TOOL_SECRET?: string;
}

@Injectable()
class Closer implements OnModuleDestroy {
  static destroyed = 0;
  onModuleDestroy() {
    Closer.destroyed++;
  }
}

const migrations: string[] = [];

function definition(withDatabase: false | 'runner' | 'datasource' = false): ServiceDefinition<ToolConfig> {
  return {
    name: 'tool-api',
    port: 0,
    config: ToolConfig,
    module: () => ({
      module: class ToolModule {},
      providers: [
        Closer,
        ...(withDatabase === 'runner' ? [{ provide: MIGRATION_RUNNER, useValue: { run: async () => migrations.splice(0) } }] : []),
        ...(withDatabase === 'datasource'
          ? [{ provide: getDataSourceToken(), useValue: { runMigrations: async () => migrations.splice(0).map((name) => ({ name })) } }]
          : []),
      ],
    }),
    commands: {
      greet: {
        description: 'print a greeting',
        run: async (ctx, args, config) => {
          process.stdout.write(`hello ${args.join(' ')} from ${config.NODE_ENV} ${ctx.get(Closer) ? 'with context' : ''} in ${ctx.get(SERVICE_MODE)} mode\n`);
        },
      },
      fail: {
        description: 'always fails',
        run: async () => {
          throw new Error('command broke');
        },
      },
    },
  };
}

const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent' } as Record<string, string>;

describe('runService', () => {
  let exit: jest.SpyInstance;
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;
  const out = () => stdout.mock.calls.map((c) => String(c[0])).join('');
  const err = () => stderr.mock.calls.map((c) => String(c[0])).join('');

  beforeEach(() => {
    exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  it('prints the usage and exits 2 on an unknown command', async () => {
    await runService(definition(), { argv: ['frobnicate'], env });
    expect(exit).toHaveBeenCalledWith(2);
    expect(err()).toContain('unknown command "frobnicate"');
    expect(err()).toContain('migrate');
    expect(err()).toContain('greet');
  });

  it('exits 1 on a config error, naming the variables without a stack trace', async () => {
    await runService(definition(), { argv: [], env: { NODE_ENV: 'production', LOG_LEVEL: 'chatty' } });
    expect(exit).toHaveBeenCalledWith(1);
    expect(err()).toContain('TOOL_SECRET');
    expect(err()).toContain('LOG_LEVEL');
    expect(err()).not.toMatch(/\n\s+at /);
  });

  it('runs a custom command with its arguments in an application context', async () => {
    const before = Closer.destroyed;
    await runService(definition(), { argv: ['greet', 'big', 'world'], env });
    expect(exit).toHaveBeenCalledWith(0);
    expect(out()).toContain('hello big world from test with context in command mode');
    expect(Closer.destroyed).toBe(before + 1);
  });

  it('exits 1 when a command fails', async () => {
    await runService(definition(), { argv: ['fail'], env });
    expect(exit).toHaveBeenCalledWith(1);
    expect(err()).toContain('command broke');
  });

  it('migrate says so when the app has no database', async () => {
    await runService(definition(), { argv: ['migrate'], env });
    expect(exit).toHaveBeenCalledWith(0);
    expect(out()).toContain('tool-api has no database');
  });

  it('migrate calls the migration runner', async () => {
    migrations.push('1700000000000-Init', '1700000000001-Users');
    await runService(definition('runner'), { argv: ['migrate'], env });
    expect(exit).toHaveBeenCalledWith(0);
    expect(out()).toContain('applied 2 migration(s): 1700000000000-Init, 1700000000001-Users');
    expect(migrations).toEqual([]);
  });

  it('migrate falls back to the TypeORM DataSource without a runner', async () => {
    migrations.push('1700000000002-Posts');
    await runService(definition('datasource'), { argv: ['migrate'], env });
    expect(exit).toHaveBeenCalledWith(0);
    expect(out()).toContain('applied 1 migration(s): 1700000000002-Posts');
    stdout.mockClear();
    await runService(definition('datasource'), { argv: ['migrate'], env });
    expect(out()).toContain('tool-api: database is up to date');
  });

  it('starts, then on SIGTERM drains, runs onModuleDestroy and exits 0', async () => {
    const exited = new Promise<number>((resolve) => exit.mockImplementation(((code: number) => resolve(code)) as never));
    const before = Closer.destroyed;
    const listeners = process.listenerCount('SIGTERM');
    const crashHandlers = ['uncaughtException', 'unhandledRejection'].map((e) => [e, process.listeners(e as 'uncaughtException')] as const);
    await runService(definition(), { argv: [], env });
    // Leave Jest's own crash handlers alone once the test is over.
    for (const [event, before] of crashHandlers) {
      for (const l of process.listeners(event as 'uncaughtException')) if (!before.includes(l)) process.off(event, l);
    }
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount('SIGTERM')).toBe(listeners + 1);

    process.emit('SIGTERM');
    await expect(exited).resolves.toBe(0);
    expect(Closer.destroyed).toBe(before + 1);
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
  });
});

