import { aRun, anAutomation, fake } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { RunsService } from '../runs/runs.service';
import { LoadRun } from './load-run';

function setup(run: ReturnType<typeof aRun> | null, automation: ReturnType<typeof anAutomation> | null) {
  const runs = fake<RunsService>({ find: jest.fn(async () => run) });
  const automations = fake<AutomationsService>({ findById: jest.fn(async () => automation) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => ({ email: 'jane@example.com' })) });
  return { contacts, load: new LoadRun(runs, automations, contacts) };
}

describe('LoadRun', () => {
  it('the run with its automation and the person’s contact', async () => {
    const s = setup(aRun(), anAutomation());
    await expect(s.load.execute('42', 1)).resolves.toEqual({ run: aRun(), automation: anAutomation(), contact: { email: 'jane@example.com' } });
    expect(s.contacts.find).toHaveBeenCalledWith(1, 'person-1');
  });

  it('null when the run or its automation is gone', async () => {
    await expect(setup(null, anAutomation()).load.execute('42', 1)).resolves.toBeNull();
    const deleted = setup(aRun(), null);
    await expect(deleted.load.execute('42', 1)).resolves.toBeNull();
    expect(deleted.contacts.find).not.toHaveBeenCalled();
  });
});
