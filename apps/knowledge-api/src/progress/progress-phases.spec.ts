import { batchLine, PHASES, PhaseTracker, phasePercentage, phasesFor, PROJECT_PHASES } from './progress-phases';

describe('progress phases', () => {
  it('are the spec’s ranges, contiguous, in order', () => {
    expect(PHASES.map((p) => [p.status, p.from, p.to])).toEqual([
      ['analyzing', 0, 5],
      ['crawling', 5, 25],
      ['processing', 25, 30],
      ['source_creation', 30, 35],
      ['document_storage', 35, 90],
      ['code_storage', 90, 95],
      ['finalization', 95, 100],
    ]);
    expect(phasePercentage('document_storage', 0.5)).toBe(62);
  });

  it('never go back, even when a phase total grows', () => {
    const t = new PhaseTracker();
    expect(t.advance('crawling', 1 / 2)).toBe(15);
    expect(t.advance('crawling', 1 / 4)).toBe(15); // 10 discovered more pages
    expect(t.advance('processing', 0)).toBe(25);
    expect(() => t.advance('crawling', 1)).toThrow(/cannot go back/);
    expect(t.complete()).toBe(100);
  });

  it('start from a stored percentage (a crawl taken over by another replica)', () => {
    expect(new PhaseTracker(40).advance('analyzing', 0)).toBe(40);
  });

  it('write the batch line of the spec', () => {
    expect(batchLine(2, 5, 51, 100, 230)).toBe('Batch 2/5: Processing items 51-100 of 230');
  });

  it('track a project creation on its own phases, and refuse a phase of another table', () => {
    expect(phasesFor('project')).toBe(PROJECT_PHASES);
    expect(phasesFor('crawl')).toBe(PHASES);
    const t = new PhaseTracker(0, phasesFor('project'));
    expect(t.advance('source_linking', 0)).toBe(10);
    expect(t.advance('ai_generation', 0.5)).toBe(45);
    expect(t.advance('saving_to_database', 1)).toBe(95);
    expect(() => t.advance('crawling', 0)).toThrow(/unknown phase/);
    expect(t.complete()).toBe(100);
  });
});
