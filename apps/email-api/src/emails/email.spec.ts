import { categoryOfSource } from './email';

describe('categoryOfSource', () => {
  it.each([
    ['API', 'transactional'],
    ['CAMPAIGN', 'campaigns'],
    ['WORKFLOW', 'workflows'],
    ['SYSTEM', null],
  ] as const)('counts %s mail as %s', (source, category) => {
    expect(categoryOfSource(source)).toBe(category);
  });
});
