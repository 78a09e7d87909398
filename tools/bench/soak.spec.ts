import { judgeSoak, MIN_SOAK_WINDOWS, type SoakWindow } from './soak';

/** Windows 0…n-1 whose memory and p99 follow the given functions of the window's index. */
function windows(
  n: number,
  rss: (i: number) => number,
  p99: (i: number) => number,
  errors: (i: number) => number = () => 0,
  heap: (i: number) => number = () => 0,
  native: (i: number) => number = () => 0,
): SoakWindow[] {
  return Array.from({ length: n }, (_, i) => ({
    at: (i + 1) * 10,
    rssMb: { 'email-api': rss(i) },
    heapMb: { 'email-api': heap(i) },
    nativeMb: { 'email-api': native(i) },
    p99Ms: { 'POST /email/v1/track': p99(i) },
    errors: { 'POST /email/v1/track': errors(i) },
  }));
}

describe('judgeSoak', () => {
  it('passes a steady run: memory that rises once and stays, latency that wobbles', () => {
    const v = judgeSoak(windows(13, (i) => (i < 2 ? 120 : 180 + (i % 3)), (i) => 8 + (i % 4)));
    expect(v.failures).toEqual([]);
    expect(v.judged).toBe(12);
    expect(v.memory).toEqual([expect.objectContaining({ service: 'email-api', growing: false })]);
  });

  it('fails memory that keeps growing over the thirds, naming the service', () => {
    const v = judgeSoak(windows(13, (i) => 150 + 6 * i, () => 8));
    expect(v.memory[0].growing).toBe(true);
    expect(v.failures).toEqual([expect.stringMatching(/^email-api: resident memory keeps growing \(\d+ → \d+ → \d+ MB/)]);
  });

  it('fails a heap that keeps growing after each collection, even when resident memory holds (V8 had room)', () => {
    const v = judgeSoak(windows(13, () => 300, () => 8, () => 0, (i) => 60 + 5 * i));
    expect(v.memory[0]).toMatchObject({ growing: true, heap: { growing: true }, rss: { growing: false } });
    expect(v.failures).toEqual([expect.stringMatching(/^email-api: heap after collection keeps growing \(73 → 93 → 113 MB/)]);
  });

  it('fails memory outside the V8 heap that keeps growing, naming it buffers or native memory', () => {
    const v = judgeSoak(windows(13, (i) => 150 + 6 * i, () => 8, () => 0, (i) => 60 + (i % 3), (i) => 70 + 6 * i));
    expect(v.memory[0]).toMatchObject({ growing: true, heap: { growing: false }, native: { growing: true } });
    expect(v.failures).toEqual([expect.stringMatching(/^email-api: memory outside the V8 heap keeps growing \(.*\): buffers or native memory$/)]);
  });

  it('does not judge resident memory as a whole where its two parts are known: the heap V8 keeps committed swings it', () => {
    // the run that asked for it: conversation-api resident at 183 → 188 → 205 MB over the thirds,
    // swinging 158 to 220 MB between windows, its heap after collection flat at 52 MB
    const rss = [167, 179, 182, 220, 198, 173, 184, 187, 190, 175, 174, 189, 203, 205, 158, 210, 208, 211, 193, 205];
    const v = judgeSoak(windows(20, (i) => rss[i], () => 8, () => 0, () => 52, (i) => 95 + (i % 3)));
    expect(v.memory[0]).toMatchObject({ rss: { growing: true }, native: { growing: false }, heap: { growing: false }, growing: false });
    expect(v.failures).toEqual([]);
    // without the parts, resident memory is what is judged
    const alone = judgeSoak(windows(20, (i) => rss[i], () => 8));
    expect(alone.failures).toEqual([expect.stringMatching(/^email-api: resident memory keeps growing/)]);
  });

  it('judges the heap from the first full collection on (0 before it), and not at all with too few windows after it', () => {
    // no full collection in the first four windows, then a flat heap: not growth
    const late = judgeSoak(windows(13, () => 200, () => 8, () => 0, (i) => (i < 5 ? 0 : 60 + (i % 2))));
    expect(late.failures).toEqual([]);
    expect(late.memory[0].heap).toMatchObject({ growing: false, firstMb: 60.5 });
    // the first full collection in the ninth window: four windows to judge are too few
    const tooLate = judgeSoak(windows(13, () => 200, () => 8, () => 0, (i) => (i < 9 ? 0 : 60 + 10 * i)));
    expect(tooLate.memory[0].heap).toBeNull();
    expect(tooLate.failures).toEqual([]);
  });

  it('passes a resident sawtooth whose heap after collection is flat (a collector that gives memory back late)', () => {
    // the run that asked for it: knowledge-mcp swinging between 162 and 263 MB from window to window
    const saw = [162, 263, 190, 240, 171, 250, 180, 230, 175, 255, 185, 245, 171];
    const v = judgeSoak(windows(13, (i) => saw[i], () => 8, () => 0, (i) => 70 + (i % 2)));
    expect(v.failures).toEqual([]);
  });

  it('does not call a step in the first third that then stays flat growth (the run that found it: 106 → 119 → 119 MB)', () => {
    // 19 judged windows: flat at 106, a step to 119 at the ninth, a tenth of a MB more by the end
    const v = judgeSoak(windows(20, (i) => (i < 9 ? 106 : 119 + i * 0.02), () => 8));
    expect(v.memory[0].growing).toBe(false);
    expect(v.failures).toEqual([]);
  });

  it('still fails a slow leak that rises through the whole run', () => {
    // 1 % a window, evenly (the thirds' medians 208, 220, 232 MB): the last third still rises over the middle one
    expect(judgeSoak(windows(20, (i) => 200 * (1 + 0.01 * i), () => 8)).memory[0].growing).toBe(true);
  });

  it('does not call a small steady creep growth (under the limit)', () => {
    expect(judgeSoak(windows(13, (i) => 200 + 0.5 * i, () => 8)).failures).toEqual([]);
  });

  it('does not judge the warm-up window', () => {
    // a first window far below the rest (start-up) would otherwise read as growth
    expect(judgeSoak(windows(13, (i) => (i === 0 ? 40 : 200), (i) => (i === 0 ? 1 : 9))).failures).toEqual([]);
  });

  it('fails latency that drifts past twice its start, and keeps sub-floor jitter out', () => {
    const drift = judgeSoak(windows(13, () => 200, (i) => (i < 6 ? 10 : 40)));
    expect(drift.latency[0]).toMatchObject({ firstP99: 10, lastP99: 40, drifting: true });
    expect(drift.failures).toEqual([expect.stringMatching(/p99 drifted from 10\.0 to 40\.0 ms/)]);
    expect(judgeSoak(windows(13, () => 200, (i) => (i < 6 ? 1 : 4))).failures).toEqual([]);
  });

  it('fails on failed requests and on a run too short to judge', () => {
    expect(judgeSoak(windows(13, () => 200, () => 8, (i) => (i === 5 ? 3 : 0))).failures).toEqual(['POST /email/v1/track: 3 failed requests']);
    const short = judgeSoak(windows(MIN_SOAK_WINDOWS, () => 200, () => 8));
    expect(short.failures).toEqual([expect.stringMatching(/at least 6 are needed/)]);
  });
});
