import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { consumerQueuesOf, EVENT_CONSUMERS } from './consumers';

const ROOT = resolve(__dirname, '../../../..');

/** Every TypeScript source of the apps (tests excluded): read as text, never imported. */
function appSources(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !/\.(spec|e2e-spec|integration-spec)\.ts$/.test(entry.name)) texts.push(readFileSync(path, 'utf8'));
    }
  };
  for (const app of readdirSync(join(ROOT, 'apps'), { withFileTypes: true })) {
    if (app.isDirectory()) walk(join(ROOT, 'apps', app.name, 'src'));
  }
  return texts.join('\n');
}

describe('EVENT_CONSUMERS', () => {
  it("names only consumers some app declares (a renamed @EventConsumer must be renamed here too)", () => {
    const sources = appSources();
    const names = [...new Set(Object.values(EVENT_CONSUMERS).flat())];
    const missing = names.filter((name) => !sources.includes(`'${name}'`));
    expect(missing).toEqual([]);
  });

  it('gives the queues of an event with the prefix, and none for an event without durable consumers', () => {
    expect(consumerQueuesOf('automation.email_captured', EVENT_CONSUMERS, 'test.')).toEqual(['test.email-api.automation']);
    expect(consumerQueuesOf('transcribe.job_finished', EVENT_CONSUMERS)).toEqual([]);
  });
});
