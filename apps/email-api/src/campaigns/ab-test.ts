import { createHash } from 'node:crypto';

/**
 * A/B tests of campaigns, the pure part: who is in the test group and which variant each gets, the
 * winner and the significance of the difference.
 *
 *   DRAFT ──send──▶ SENDING/testing ──test mails all handed to SMTP──▶ SENDING/waiting
 *        (test group written, variants A–D)      (winner due after waitMinutes)
 *                                                           │ wait over, or POST /ab/winner
 *                                                           ▼
 *                            SENT ◀──rest written and sent── SENDING/winner
 *
 * The test group is a uniform random sample of the audience, drawn while the fan-out walks the
 * audience in its usual id order, by selection sampling (Knuth's Algorithm S): a contact is taken
 * with probability (still needed) / (still to come), where the "coin" is a hash of the campaign
 * and the contact, so the draw is the same every time the batch runs (a restart draws nobody
 * else). The group's size is exactly `testGroupSize` when the audience keeps its size; the
 * variants are dealt out in turn (A, B, …, A, B, …), so their sizes differ by at most one.
 */

export const VARIANT_IDS = ['A', 'B', 'C', 'D'] as const;
export type VariantId = (typeof VARIANT_IDS)[number];
export type AbMetric = 'opens' | 'clicks';
export type AbPhase = 'testing' | 'waiting' | 'winner';

/** Significance level of the two-proportion test. */
export const SIGNIFICANCE_LEVEL = 0.05;

export interface AbVariant {
  /** Replaces the campaign's subject (null: the campaign's). */
  subject: string | null;
  /** Replaces the campaign's body (null: the campaign's). */
  body: string | null;
}

/** The A/B test of a campaign as stored (`campaigns.ab_test`). */
export interface AbTestConfig {
  variants: AbVariant[];
  /** Percent of the audience in the test group, 1–50. */
  testShare: number;
  metric: AbMetric;
  /** Minutes between the last test mail handed to SMTP and the automatic pick. */
  waitMinutes: number;
}

export const variantId = (index: number): VariantId => VARIANT_IDS[index];
export const variantIndex = (id: string): number => VARIANT_IDS.indexOf(id as VariantId);

/** The subject and body a variant's mail carries: the variant's where it gives them, else the campaign's. */
export function variantContent(campaign: { subject: string; body: string }, variant: AbVariant): { subject: string; body: string } {
  return { subject: variant.subject ?? campaign.subject, body: variant.body ?? campaign.body };
}

/**
 * Size of the test group: `testShare` % of the audience rounded half up, at least one contact per
 * variant, at most the whole audience.
 */
export function testGroupSize(audience: number, testShare: number, variants: number): number {
  if (audience <= 0) return 0;
  return Math.min(audience, Math.max(variants, Math.floor((audience * testShare) / 100 + 0.5)));
}

/** A number in [0, 1) fixed by the campaign and the contact (the first 52 bits of SHA-256). */
export function sampleCoin(campaignId: string, contactId: string): number {
  const digest = createHash('sha256').update(`${campaignId}:${contactId}`).digest();
  return (digest.readUInt32BE(0) * 2 ** 20 + (digest.readUInt32BE(4) >>> 12)) / 2 ** 52;
}

/** Where the drawing of the test group stands (stored on the campaign, moved with each fan-out batch). */
export interface SamplingState {
  /** Recipients counted when the test started. */
  audience: number;
  /** Contacts the test group takes. */
  testSize: number;
  /** Contacts the fan-out walked past so far. */
  seen: number;
  /** Contacts taken so far. */
  selected: number;
}

/**
 * The next contacts of the fan-out (in its order): those the test group takes, each with its
 * variant index, and the state after them. Deterministic for the same state, campaign and contacts.
 */
export function drawTestGroup(
  state: SamplingState,
  contactIds: string[],
  campaignId: string,
  variants: number,
): { picks: Array<{ contactId: string; variant: number }>; state: SamplingState } {
  let { seen, selected } = state;
  const picks: Array<{ contactId: string; variant: number }> = [];
  for (const contactId of contactIds) {
    const needed = state.testSize - selected;
    const toCome = state.audience - seen;
    seen += 1;
    if (needed <= 0) continue;
    // the audience grew since it was counted: whoever comes once it is used up is taken while the group is short
    if (toCome <= needed || sampleCoin(campaignId, contactId) < needed / toCome) {
      picks.push({ contactId, variant: selected % variants });
      selected += 1;
    }
  }
  return { picks, state: { ...state, seen, selected } };
}

/** One variant's result for the metric: `successes` of `trials` (human unique opens or clicks of delivered mails). */
export interface Proportion {
  successes: number;
  trials: number;
}

export const rate = (p: Proportion): number => (p.trials > 0 ? p.successes / p.trials : 0);

/** a's rate compared with b's, exactly (cross-multiplied, no rounding): > 0 when a's is higher. */
function compareRates(a: Proportion, b: Proportion): number {
  if (a.trials > 0 && b.trials > 0) return a.successes * b.trials - b.successes * a.trials;
  return rate(a) - rate(b);
}

/** Variant indexes from the best rate to the worst; equal rates keep the variants' order (A before B). */
export function rankVariants(figures: Proportion[]): number[] {
  return figures.map((_, i) => i).sort((i, j) => compareRates(figures[j], figures[i]) || i - j);
}

/**
 * The winner by the metric's rate: the highest; a tie for the highest goes to the first of the
 * tied variants in order (A before B), and `tie` says so.
 */
export function pickWinner(figures: Proportion[]): { index: number; tie: boolean } {
  if (!figures.length) throw new Error('pickWinner needs at least one variant');
  const [best, second] = rankVariants(figures);
  return { index: best, tie: second !== undefined && compareRates(figures[best], figures[second]) === 0 };
}

/** Complementary error function (W. J. Cody's rational Chebyshev approximations as in Numerical Recipes' erfcc; relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

export interface ZTest {
  /** (p1 − p2) / pooled standard error; 0 when it cannot be computed (no trials, or both rates 0 or 1). */
  z: number;
  /** Two-sided p-value. */
  pValue: number;
  /** pValue < SIGNIFICANCE_LEVEL. */
  significant: boolean;
}

/**
 * The pooled two-proportion z-test of a − b: z = (p̂a − p̂b) / √(p̂(1 − p̂)(1/na + 1/nb)) with
 * p̂ = (xa + xb) / (na + nb), two-sided p-value 2(1 − Φ(|z|)) = erfc(|z| / √2). The normal
 * approximation wants about five successes and five failures on each side; with fewer the
 * p-value is rough, and with none at all the test says nothing (z 0, p-value 1).
 */
export function twoProportionZTest(a: Proportion, b: Proportion): ZTest {
  if (a.trials <= 0 || b.trials <= 0) return { z: 0, pValue: 1, significant: false };
  const pooled = (a.successes + b.successes) / (a.trials + b.trials);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  if (!(se > 0)) return { z: 0, pValue: 1, significant: false };
  const z = (a.successes / a.trials - b.successes / b.trials) / se;
  const pValue = Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
  return { z, pValue, significant: pValue < SIGNIFICANCE_LEVEL };
}

/** The test between the best two variants by the metric (the best first). */
export function significanceOfBest(figures: Proportion[]): { variants: [number, number]; test: ZTest } {
  const [best, second] = rankVariants(figures);
  return { variants: [best, second], test: twoProportionZTest(figures[best], figures[second]) };
}

/** The two best variants by the metric and the test between them, as the API shows it. */
export interface AbSignificance {
  metric: AbMetric;
  /** The best variant first, then the runner-up. */
  variants: [VariantId, VariantId];
  z: number;
  pValue: number;
  significant: boolean;
}

/** How the winner was picked (`campaigns.ab_decision`), with the figures it was picked on. */
export interface AbDecision {
  /** `metric`: the highest rate of the metric; `forced`: the variant POST /ab/winner named. */
  by: 'metric' | 'forced';
  /** `wait`: the wait ran out; `early`: POST /ab/winner ended it. */
  trigger: 'wait' | 'early';
  /** Picked by the metric, and another variant had the same rate: the first of them won. */
  tie: boolean;
  at: string;
  figures: Array<{ variant: VariantId; delivered: number; successes: number; rate: number }>;
  significance: AbSignificance;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The significance between the best two variants, rounded for display (z 4 decimals, p-value 6). */
export function significance(metric: AbMetric, figures: Proportion[]): AbSignificance {
  const { variants, test } = significanceOfBest(figures);
  return { metric, variants: [variantId(variants[0]), variantId(variants[1])], z: round(test.z, 4), pValue: round(test.pValue, 6), significant: test.significant };
}

/**
 * The winner of a test from each variant's figures for the metric (`forced`: that variant,
 * whatever the figures), with the record of how it was picked.
 */
export function decideWinner(metric: AbMetric, figures: Proportion[], trigger: AbDecision['trigger'], at: Date, forced?: number): { winner: number; decision: AbDecision } {
  const picked = forced === undefined ? pickWinner(figures) : { index: forced, tie: false };
  return {
    winner: picked.index,
    decision: {
      by: forced === undefined ? 'metric' : 'forced',
      trigger,
      tie: picked.tie,
      at: at.toISOString(),
      figures: figures.map((f, i) => ({ variant: variantId(i), delivered: f.trials, successes: f.successes, rate: round(rate(f), 4) })),
      significance: significance(metric, figures),
    },
  };
}

/** A group of an A/B campaign's mails as counted: a variant's test mails (0–3) or the rest (null). */
export interface AbGroupCounts {
  variant: number | null;
  recipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
}

/** Each variant's successes of the metric per delivered test mail (zeros for a variant without mail yet). */
export function variantProportions(groups: AbGroupCounts[], variants: number, metric: AbMetric): Proportion[] {
  return Array.from({ length: variants }, (_, i) => {
    const g = groups.find((x) => x.variant === i);
    return { successes: g ? (metric === 'opens' ? g.opened : g.clicked) : 0, trials: g?.delivered ?? 0 };
  });
}

export interface AbFigures {
  recipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  openRate: number;
  clickRate: number;
}

function figuresOf(g: AbGroupCounts | undefined): AbFigures {
  const c = g ?? { recipients: 0, sent: 0, delivered: 0, opened: 0, clicked: 0 };
  return {
    recipients: c.recipients,
    sent: c.sent,
    delivered: c.delivered,
    opened: c.opened,
    clicked: c.clicked,
    openRate: round(rate({ successes: c.opened, trials: c.delivered }), 4),
    clickRate: round(rate({ successes: c.clicked, trials: c.delivered }), 4),
  };
}

/** Where an A/B test stands, as stored on the campaign. */
export interface AbState {
  phase: AbPhase | null;
  audience: number | null;
  testSize: number | null;
  dueAt: Date | null;
  winner: number | null;
  decision: AbDecision | null;
}

/** The A/B part of GET /campaigns/:id/stats: figures per variant and of the rest, the winner and how it was picked, the significance now. */
export function abReport(config: AbTestConfig, state: AbState, groups: AbGroupCounts[]) {
  return {
    phase: state.phase,
    metric: config.metric,
    testShare: config.testShare,
    waitMinutes: config.waitMinutes,
    audience: state.audience,
    testSize: state.testSize,
    winnerDueAt: state.dueAt,
    variants: config.variants.map((_, i) => ({ id: variantId(i), ...figuresOf(groups.find((g) => g.variant === i)) })),
    rest: figuresOf(groups.find((g) => g.variant === null)),
    winner: state.winner === null || !state.decision ? null : { variant: variantId(state.winner), ...state.decision },
    significance: significance(config.metric, variantProportions(groups, config.variants.length, config.metric)),
  };
}
