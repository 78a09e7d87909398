import { auditOutcome, mergeChecks, ownChecks, type ArrivalNotice, type UpstreamCheck } from './audit-outcome';

const clean: ArrivalNotice = { job_type: 'freight', containers: ['MSCU1234566'], consignee: 'Importadora SA', eta: '2026-11-29', telex_release: true, charges: [{ description: 'Ocean freight', amount: 1200, currency: 'USD' }] };
const run = (n: ArrivalNotice, upstream: UpstreamCheck[] = []) => auditOutcome(mergeChecks(ownChecks(n), upstream), n);

describe('arrival-notice audit outcome', () => {
  it.each<[string, ArrivalNotice, UpstreamCheck[], string, number]>([
    ['no issues → SUCCESS', clean, [], 'SUCCESS', 100],
    ['an upstream stop → EXCEPTION', clean, [{ name: 'AMOUNTS_MATCH', stop_processing: true, passed: false }], 'EXCEPTION', 60],
    ['an upstream stop without passed counts as failed', clean, [{ name: 'AMOUNTS_MATCH', stop_processing: true }], 'EXCEPTION', 60],
    ['an upstream stop that passed is no issue', clean, [{ name: 'AMOUNTS_MATCH', stop_processing: true, passed: true }], 'SUCCESS', 100],
    ['no shipment reference (own stop) → EXCEPTION', { ...clean, containers: [] }, [], 'EXCEPTION', 60],
    ['a wrong check digit (own stop) → EXCEPTION', { ...clean, containers: ['MSCU1234567'] }, [], 'EXCEPTION', 60],
    ['a stop beats a pending telex release', { ...clean, containers: [], telex_release: false }, [], 'EXCEPTION', 35],
    ['freight without telex release → FINANCIAL_PENDING', { ...clean, telex_release: false }, [], 'FINANCIAL_PENDING', 75],
    ['freight with telex release absent → FINANCIAL_PENDING', { ...clean, telex_release: undefined }, [], 'FINANCIAL_PENDING', 75],
    ['telex pending beats minor issues', { ...clean, telex_release: false, consignee: '' }, [], 'FINANCIAL_PENDING', 65],
    ['customs job without telex release is fine', { ...clean, job_type: 'customs', telex_release: false }, [], 'SUCCESS', 100],
    ['no consignee → PARTIAL_SUCCESS', { ...clean, consignee: undefined }, [], 'PARTIAL_SUCCESS', 90],
    ['no ETA and a bad charge → PARTIAL_SUCCESS', { ...clean, eta: 'soon', charges: [{ amount: 0, currency: 'USD' }] }, [], 'PARTIAL_SUCCESS', 80],
    ['a minor upstream failure → PARTIAL_SUCCESS', clean, [{ name: 'FORMAT', stop_processing: false, passed: false, message: 'odd layout' }], 'PARTIAL_SUCCESS', 90],
    ['upstream replaces the own check of the same name', { ...clean, consignee: undefined }, [{ name: 'consignee', stop_processing: false, passed: true }], 'SUCCESS', 100],
    ['the score never goes below 0', { containers: [] }, [1, 2, 3].map((i) => ({ name: `S${i}`, stop_processing: true })), 'EXCEPTION', 0],
  ])('%s', (_name, notice, upstream, outcome, score) => {
    expect(run(notice, upstream)).toEqual({ outcome, score });
  });

  it('lists upstream checks first, then the own ones', () => {
    const merged = mergeChecks(ownChecks(clean), [{ name: 'X', stop_processing: false, passed: true, message: 'ok' }]);
    expect(merged.map((c) => `${c.source}:${c.name}`)).toEqual(['upstream:X', 'service:SHIPMENT_REFERENCE', 'service:CONSIGNEE', 'service:ETA', 'service:CHARGES', 'service:TELEX_RELEASE']);
  });
});
