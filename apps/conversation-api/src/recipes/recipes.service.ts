import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError, type FieldError } from '@platform/errors';
import type { Principal } from '../access/principal';
import { CannedResponsesService } from '../canned-responses/canned-responses.service';
import { ChannelsService } from '../channels/channels.service';
import { notFound } from '../common/errors';
import { LabelsService } from '../labels/labels.service';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import { assertIfMatch, draftEtag } from './etag';
import { checkDefinition, emptyDefinition, type RecipeDefinition } from './recipe-definition';
import { RecipesRepository, type Recipe, type RecipeRun, type RecipeVersion } from './recipes.repository';

export type { Recipe, RecipeRun, RecipeVersion } from './recipes.repository';

/**
 * Recipes (automation flows): a draft saved under an ETag (`If-Match` required, so two editors never
 * overwrite each other), published as immutable numbered versions; the published version of an
 * enabled recipe runs on conversation events (RecipeRunner).
 */
@Injectable()
export class RecipesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly recipes: RecipesRepository,
    private readonly labels: LabelsService,
    private readonly canned: CannedResponsesService,
    private readonly users: UsersService,
    private readonly teams: TeamsService,
    private readonly channels: ChannelsService,
  ) {}

  list(accountId: string, limit: number, offset: number) {
    return this.recipes.list(accountId, limit, offset);
  }

  async get(accountId: string, id: string): Promise<Recipe> {
    const recipe = await this.recipes.find(accountId, id);
    if (!recipe) throw notFound('recipe');
    return recipe;
  }

  /** A recipe with an empty draft (no trigger, conditions or actions), enabled, never published. */
  create(p: Principal, name: string): Promise<Recipe> {
    return this.recipes.insert({ accountId: p.accountId, name, draft: emptyDefinition(), webhookSecret: `whsec_${randomBytes(24).toString('base64url')}`, createdBy: p.userId });
  }

  async rename(accountId: string, id: string, name: string): Promise<Recipe> {
    return this.transactions.transaction(async () => this.recipes.rename((await this.locked(accountId, id)).id, name));
  }

  /** The draft and its ETag. */
  async draft(accountId: string, id: string): Promise<{ draft: RecipeDefinition; etag: string }> {
    const recipe = await this.get(accountId, id);
    return { draft: recipe.draft, etag: draftEtag(recipe.id, recipe.draftRevision) };
  }

  /**
   * Replaces the draft when `ifMatch` names its current ETag (see assertIfMatch); 422 naming the
   * path of each bad node. The new ETag.
   */
  async saveDraft(accountId: string, id: string, ifMatch: string | string[] | undefined, body: unknown): Promise<{ draft: RecipeDefinition; etag: string }> {
    return this.transactions.transaction(async () => {
      const recipe = await this.locked(accountId, id);
      assertIfMatch(ifMatch, draftEtag(recipe.id, recipe.draftRevision));
      const definition = valid(checkDefinition(body));
      const saved = await this.recipes.saveDraft(recipe.id, definition);
      return { draft: saved.draft, etag: draftEtag(saved.id, saved.draftRevision) };
    });
  }

  /**
   * Publishes the draft named by `ifMatch` as the next immutable version: it must be complete (a
   * trigger, an action) and everything it names must exist in the account (422 with each path).
   */
  async publish(p: Principal, id: string, ifMatch: string | string[] | undefined): Promise<{ version: RecipeVersion; etag: string }> {
    return this.transactions.transaction(async () => {
      const recipe = await this.locked(p.accountId, id);
      const etag = draftEtag(recipe.id, recipe.draftRevision);
      assertIfMatch(ifMatch, etag);
      const definition = valid(checkDefinition(recipe.draft, { complete: true }));
      await this.checkReferences(p.accountId, definition);
      const version = await this.recipes.publish(recipe.id, definition, p.userId, null);
      return { version: (await this.recipes.version(recipe.id, version))!, etag };
    });
  }

  /**
   * Makes an earlier version the draft and publishes it as the next version (`rolled_back_from`).
   * `If-Match` is optional here (the draft is replaced by a version everybody can read), and checked when sent.
   */
  async rollback(p: Principal, id: string, version: number, ifMatch: string | string[] | undefined): Promise<{ version: RecipeVersion; etag: string }> {
    return this.transactions.transaction(async () => {
      const recipe = await this.locked(p.accountId, id);
      if (ifMatch !== undefined) assertIfMatch(ifMatch, draftEtag(recipe.id, recipe.draftRevision));
      const target = await this.recipes.version(recipe.id, version);
      if (!target) throw notFound('recipe version', 'VERSION_NOT_FOUND');
      await this.checkReferences(p.accountId, target.definition);
      const saved = await this.recipes.saveDraft(recipe.id, target.definition);
      const next = await this.recipes.publish(recipe.id, target.definition, p.userId, version);
      return { version: (await this.recipes.version(recipe.id, next))!, etag: draftEtag(saved.id, saved.draftRevision) };
    });
  }

  async setEnabled(accountId: string, id: string, enabled: boolean): Promise<Recipe> {
    return this.transactions.transaction(async () => this.recipes.setEnabled((await this.locked(accountId, id)).id, enabled));
  }

  async delete(accountId: string, id: string): Promise<{ deleted: true }> {
    if (!(await this.recipes.delete(accountId, id))) throw notFound('recipe');
    return { deleted: true };
  }

  async versions(accountId: string, id: string): Promise<RecipeVersion[]> {
    return this.recipes.versions((await this.get(accountId, id)).id);
  }

  async version(accountId: string, id: string, version: number): Promise<RecipeVersion> {
    const found = await this.recipes.version((await this.get(accountId, id)).id, version);
    if (!found) throw notFound('recipe version', 'VERSION_NOT_FOUND');
    return found;
  }

  async runs(accountId: string, id: string, limit: number, offset: number): Promise<{ items: RecipeRun[]; total: number }> {
    return this.recipes.runs((await this.get(accountId, id)).id, limit, offset);
  }

  private async locked(accountId: string, id: string): Promise<Recipe> {
    const recipe = await this.recipes.lock(accountId, id);
    if (!recipe) throw notFound('recipe');
    return recipe;
  }

  /** 422 naming each node whose label, canned response, agent, team or channel is not in the account. */
  private async checkReferences(accountId: string, d: RecipeDefinition): Promise<void> {
    const errors: FieldError[] = [];
    const labelNodes: Array<[string, string]> = [];
    d.conditions.forEach((c, i) => c.type === 'label' && labelNodes.push([`conditions[${i}].label`, c.label]));
    d.actions.forEach((a, i) => a.type === 'add_label' && labelNodes.push([`actions[${i}].label`, a.label]));
    const unknownLabels = new Set((await this.labels.unknownNames(accountId, labelNodes.map(([, l]) => l))).map((l) => l.toLowerCase()));
    for (const [field, label] of labelNodes) if (unknownLabels.has(label.toLowerCase())) errors.push({ field, message: `no label ${label} in the catalogue (POST /api/v1/labels)`, code: 'unknown_label' });
    for (const [i, a] of d.actions.entries()) {
      if (a.type === 'reply' && !(await this.canned.find(accountId, a.canned_response_id))) errors.push({ field: `actions[${i}].canned_response_id`, message: 'no such canned response in the account', code: 'unknown_canned_response' });
      if (a.type === 'assign_agent' && !(await this.users.find(accountId, a.user_id))?.active) errors.push({ field: `actions[${i}].user_id`, message: 'no active user with this id in the account', code: 'unknown_user' });
      if (a.type === 'assign_team' && !(await exists(() => this.teams.get(accountId, a.team_id)))) errors.push({ field: `actions[${i}].team_id`, message: 'no such team in the account', code: 'unknown_team' });
    }
    for (const [i, c] of d.conditions.entries()) {
      if (c.type !== 'channel') continue;
      for (const [j, channelId] of c.channel_ids.entries()) {
        if (!(await exists(() => this.channels.get(accountId, channelId)))) errors.push({ field: `conditions[${i}].channel_ids[${j}]`, message: 'no such channel in the account', code: 'unknown_channel' });
      }
    }
    if (errors.length) throw new ApiError(422, 'VALIDATION_ERROR', 'The recipe names things that do not exist in this account', { errors });
  }
}

function valid(checked: { definition: RecipeDefinition | null; errors: FieldError[] }): RecipeDefinition {
  if (checked.definition) return checked.definition;
  throw new ApiError(422, 'VALIDATION_ERROR', `The recipe is not valid: ${checked.errors.length} problem${checked.errors.length === 1 ? '' : 's'}`, {
    errors: checked.errors,
    suggestion: 'Each error names the path of the node (conditions[0].pattern, actions[1].url). See the RecipeDraft schema in /api/docs.',
  });
}

async function exists(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.getStatus() === 404) return false;
    throw err;
  }
}
