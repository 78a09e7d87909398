import { aRun, anAccount, fake } from '../../test/engine-fakes';
import type { ContactsService } from '../contacts/contacts.service';
import { GraphApiError } from '../graph/graph-api.error';
import type { GraphService } from '../graph/graph.service';
import type { RunsService } from '../runs/runs.service';
import { ReadProfile } from './read-profile';

function setup(getUserProfile: jest.Mock) {
  const graph = fake<GraphService>({ client: jest.fn(() => ({ getUserProfile })) });
  const contacts = fake<ContactsService>({ setFollows: jest.fn() });
  const runs = fake<RunsService>({ setUsername: jest.fn() });
  return { contacts, runs, profiles: new ReadProfile(graph, contacts, runs) };
}

describe('ReadProfile', () => {
  it('username: read from the profile and stored on the contact with the follow status', async () => {
    const s = setup(jest.fn(async () => ({ username: 'jane', is_user_follow_business: true })));
    await expect(s.profiles.username(anAccount(), 'person-1')).resolves.toBe('jane');
    expect(s.contacts.setFollows).toHaveBeenCalledWith(1, 'person-1', true, 'jane');
  });

  it('username: null when the platform does not answer (best effort)', async () => {
    const s = setup(jest.fn(async () => Promise.reject(new GraphApiError('timeout', 'no answer'))));
    await expect(s.profiles.username(anAccount(), 'person-1')).resolves.toBeNull();
    expect(s.contacts.setFollows).not.toHaveBeenCalled();
  });

  it('followStatus: stored on the contact; null when the platform refuses for good', async () => {
    const s = setup(jest.fn(async () => ({ username: 'jane', is_user_follow_business: false })));
    await expect(s.profiles.followStatus(anAccount(), aRun())).resolves.toBe(false);
    expect(s.contacts.setFollows).toHaveBeenCalledWith(1, 'person-1', false, 'jane');
    const refused = setup(jest.fn(async () => Promise.reject(new GraphApiError('platform', 'consent required'))));
    await expect(refused.profiles.followStatus(anAccount(), aRun())).resolves.toBeNull();
  });

  it('followStatus: a retryable failure is thrown (the work item is retried)', async () => {
    const s = setup(jest.fn(async () => Promise.reject(new GraphApiError('throttled', 'slow down'))));
    await expect(s.profiles.followStatus(anAccount(), aRun())).rejects.toBeInstanceOf(GraphApiError);
  });

  it('fillUsername: the contact’s handle, else the profile’s, set on the run and stored', async () => {
    const known = setup(jest.fn());
    const run = aRun({ username: null });
    await known.profiles.fillUsername(anAccount(), run, { username: 'jane' } as never);
    expect(run.username).toBe('jane');
    expect(known.runs.setUsername).toHaveBeenCalledWith('42', 'jane');
    const read = setup(jest.fn(async () => ({ username: 'ivy' })));
    const other = aRun({ username: null });
    await read.profiles.fillUsername(anAccount(), other, null);
    expect(other.username).toBe('ivy');
    const unknown = setup(jest.fn(async () => Promise.reject(new GraphApiError('timeout', 'no answer'))));
    await unknown.profiles.fillUsername(anAccount(), aRun({ username: null }), null);
    expect(unknown.runs.setUsername).not.toHaveBeenCalled();
  });
});
