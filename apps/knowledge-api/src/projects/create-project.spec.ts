import { draftPrompt, parseDraft, type ProjectCreationRequest } from './create-project';

describe('parseDraft', () => {
  it('reads features, tasks and PRD sections from a fenced or bare JSON answer, leaving out what is malformed', () => {
    const json = {
      prd: { overview: 'o' },
      features: [{ name: 'A', description: 'a', priority: 'high' }, { description: 'nameless' }, 'text'],
      tasks: [{ title: 'T1', description: 'd', feature: 'A' }, { title: '' }, { title: 'T2', feature: 'Unknown' }],
    };
    for (const answer of [JSON.stringify(json), `Sure!\n\`\`\`json\n${JSON.stringify(json)}\n\`\`\`\nDone.`]) {
      const d = parseDraft(answer);
      expect(d.prd).toEqual({ overview: 'o' });
      expect(d.features).toEqual([{ id: expect.any(String), name: 'A', description: 'a', priority: 'high', status: 'planned' }]);
      expect(d.tasks).toEqual([
        { title: 'T1', description: 'd', feature: 'A' },
        { title: 'T2', description: '', feature: 'Unknown' },
      ]);
    }
  });

  it('refuses an answer without a JSON object', () => {
    expect(() => parseDraft('I cannot help with that.')).toThrow(/no JSON object/);
  });

  it('asks with the title, description and the linked sources', () => {
    const req = { title: 'P', description: 'D', github_repo: null, features: [{ name: 'F' }] } as unknown as ProjectCreationRequest;
    const [system, user] = draftPrompt(req, ['Source A']);
    expect(system.content).toMatch(/JSON object/);
    expect(user.content).toBe('Project: P\nDescription: D\nFeatures already planned: F\nReference material: Source A');
  });
});
