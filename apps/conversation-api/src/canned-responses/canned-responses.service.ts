import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { conflict, notFound } from '../common/errors';
import { CannedResponsesRepository, type CannedResponse } from './canned-responses.repository';
import type { CreateCannedResponseDto, UpdateCannedResponseDto } from './dto/canned-response.dto';
import { renderTemplate, TEMPLATE_VARIABLES, unknownVariables, type TemplateValues } from './template';

export type { CannedResponse } from './canned-responses.repository';
export type { TemplateValues } from './template';

/** Canned responses: reply texts an agent (or a recipe) picks by short code, with `{{contact.name}}`-style variables. */
@Injectable()
export class CannedResponsesService {
  constructor(private readonly canned: CannedResponsesRepository) {}

  list(accountId: string, q: string | undefined, limit: number, offset: number) {
    return this.canned.list(accountId, q, limit, offset);
  }

  async get(accountId: string, id: string): Promise<CannedResponse> {
    const found = await this.canned.find(accountId, id);
    if (!found) throw notFound('canned response');
    return found;
  }

  /** The account's canned response, or null. */
  find(accountId: string, id: string): Promise<CannedResponse | null> {
    return this.canned.find(accountId, id);
  }

  unknownIds(accountId: string, ids: string[]): Promise<string[]> {
    return this.canned.unknownIds(accountId, ids);
  }

  async create(accountId: string, dto: CreateCannedResponseDto): Promise<CannedResponse> {
    checkVariables(dto.content);
    const created = await this.canned.insert(accountId, dto.short_code, dto.content);
    if (!created) throw taken(dto.short_code);
    return created;
  }

  async update(accountId: string, id: string, dto: UpdateCannedResponseDto): Promise<CannedResponse> {
    if (dto.content !== undefined) checkVariables(dto.content);
    const updated = await this.canned.update(accountId, id, { shortCode: dto.short_code, content: dto.content });
    if (updated === 'taken') throw taken(dto.short_code!);
    if (!updated) throw notFound('canned response');
    return updated;
  }

  async delete(accountId: string, id: string): Promise<{ deleted: true }> {
    if (!(await this.canned.delete(accountId, id))) throw notFound('canned response');
    return { deleted: true };
  }

  /** The canned response's text with its variables filled in. */
  render(canned: CannedResponse, values: TemplateValues): string {
    return renderTemplate(canned.content, values);
  }

  /** Any text with canned-response variables (the account's out-of-office reply) filled in. */
  renderText(template: string, values: TemplateValues): string {
    return renderTemplate(template, values);
  }
}

function checkVariables(content: string): void {
  const unknown = unknownVariables(content);
  if (!unknown.length) return;
  throw new ApiError(422, 'VALIDATION_ERROR', `Unknown variables: ${unknown.map((v) => `{{${v}}}`).join(', ')}`, {
    errors: unknown.map((v) => ({ field: 'content', message: `unknown variable {{${v}}}`, code: 'unknown_variable' })),
    suggestion: `Known variables: ${TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ')}.`,
  });
}

const taken = (code: string) => conflict('SHORT_CODE_TAKEN', `A canned response with short code ${code} exists`, 'Short codes are unique without regard to case; choose another.');
