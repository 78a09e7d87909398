import type { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { DomainsService } from '../domains/domains.service';
import { TemplateUsers } from '../templates/template-users';
import type { TemplatesService } from '../templates/templates.service';
import { OPT_IN_OFF, type OptInSettings } from './opt-in-settings';
import { OptInSettingsService } from './opt-in-settings.service';
import type { OptInRepository } from './opt-in.repository';

const TEMPLATE = '00000000-0000-4000-8000-000000000001';

function setup(current: OptInSettings = OPT_IN_OFF, verified = true) {
  const saved: OptInSettings[] = [];
  const repo = { lock: async () => current, save: async (_p: string, s: OptInSettings) => (saved.push(s), s) };
  const templates = {
    getForUse: async (_p: string, id: string) => {
      if (id !== TEMPLATE) throw new ApiError(404, 'TEMPLATE_NOT_FOUND', 'Template not found');
      return { id, from: 'hi@news.test' };
    },
  };
  const domains = {
    requireVerifiedSender: async (_p: string, _from: string, field: string) => {
      if (!verified) throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors: [{ field, message: 'not verified', code: 'domain_not_verified' }] });
    },
  };
  const transactions = { transaction: <T>(fn: () => Promise<T>) => fn() };
  const service = new OptInSettingsService(transactions as unknown as Transactions, repo as unknown as OptInRepository, templates as unknown as TemplatesService, domains as unknown as DomainsService, new TemplateUsers());
  return { service, saved };
}

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: ApiError) => (e.getResponse() as { errors?: Array<{ code: string }> }).errors?.[0]?.code ?? (e as Error).message);

describe('OptInSettingsService.configure', () => {
  it('turns double opt-in on with a template of the project on a verified domain', async () => {
    const { service, saved } = setup();
    expect(await service.configure('p1', { enabled: true, templateId: TEMPLATE })).toEqual({ enabled: true, templateId: TEMPLATE });
    expect(saved).toHaveLength(1);
  });

  it('refuses turning it on without a template, with an unknown one, or one whose domain is not verified', async () => {
    expect(await codeOf(setup().service.configure('p1', { enabled: true }))).toBe('required');
    expect(await codeOf(setup().service.configure('p1', { enabled: true, templateId: '00000000-0000-4000-8000-000000000009' }))).toBe('not_found');
    expect(await codeOf(setup(OPT_IN_OFF, false).service.configure('p1', { enabled: true, templateId: TEMPLATE }))).toBe('domain_not_verified');
    // the stored template is checked again when it is turned on
    expect(await codeOf(setup({ enabled: false, templateId: TEMPLATE }, false).service.configure('p1', { enabled: true }))).toBe('domain_not_verified');
    expect(await codeOf(setup({ enabled: true, templateId: TEMPLATE }).service.configure('p1', { templateId: null }))).toBe('required');
  });

  it('keeps what is not given, and turning it off needs no template', async () => {
    const { service } = setup({ enabled: true, templateId: TEMPLATE }, false);
    expect(await service.configure('p1', { enabled: false })).toEqual({ enabled: false, templateId: TEMPLATE });
  });
});
