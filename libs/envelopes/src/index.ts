export { ok, page, type OkEnvelope, type PageEnvelope, type PageMeta } from './envelopes';
export { ApiOkEnvelope, ApiPageEnvelope, type EnvelopeDocOptions } from './swagger';
