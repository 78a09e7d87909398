import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { RecipeDefinition, Trigger } from './recipe-definition';

export interface Recipe {
  id: string;
  accountId: string;
  name: string;
  enabled: boolean;
  draft: RecipeDefinition;
  draftRevision: number;
  draftUpdatedAt: Date;
  publishedVersion: number | null;
  trigger: Trigger | null;
  webhookSecret: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface RecipeVersion {
  recipeId: string;
  version: number;
  definition: RecipeDefinition;
  rolledBackFrom: number | null;
  publishedBy: string | null;
  publishedAt: Date;
}

/** A published, enabled recipe as a run needs it. */
export interface ActiveRecipe {
  id: string;
  name: string;
  version: number;
  definition: RecipeDefinition;
  webhookSecret: string;
}

export type RunOutcome = 'succeeded' | 'failed' | 'loop_stopped';

export interface ActionResult {
  type: string;
  outcome: 'done' | 'skipped' | 'failed';
  detail?: string;
}

export interface RecipeRun {
  id: string;
  recipeId: string;
  version: number;
  eventId: string;
  trigger: string;
  conversationId: string | null;
  depth: number;
  outcome: RunOutcome;
  actions: ActionResult[];
  error: string | null;
  createdAt: Date;
}

interface RecipeRow {
  id: string;
  account_id: string;
  name: string;
  enabled: boolean;
  draft: RecipeDefinition;
  draft_revision: number;
  draft_updated_at: Date;
  published_version: number | null;
  trigger: Trigger | null;
  webhook_secret: string;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow {
  recipe_id: string;
  version: number;
  definition: RecipeDefinition;
  rolled_back_from: number | null;
  published_by: string | null;
  published_at: Date;
}

interface RunRow {
  id: string;
  recipe_id: string;
  version: number;
  event_id: string;
  trigger: string;
  conversation_id: string | null;
  depth: number;
  outcome: RunOutcome;
  actions: ActionResult[];
  error: string | null;
  created_at: Date;
}

const toRecipe = (r: RecipeRow): Recipe => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  enabled: r.enabled,
  draft: r.draft,
  draftRevision: r.draft_revision,
  draftUpdatedAt: r.draft_updated_at,
  publishedVersion: r.published_version,
  trigger: r.trigger,
  webhookSecret: r.webhook_secret,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toVersion = (r: VersionRow): RecipeVersion => ({
  recipeId: r.recipe_id,
  version: r.version,
  definition: r.definition,
  rolledBackFrom: r.rolled_back_from,
  publishedBy: r.published_by,
  publishedAt: r.published_at,
});

const toRun = (r: RunRow): RecipeRun => ({
  id: r.id,
  recipeId: r.recipe_id,
  version: r.version,
  eventId: r.event_id,
  trigger: r.trigger,
  conversationId: r.conversation_id,
  depth: r.depth,
  outcome: r.outcome,
  actions: r.actions,
  error: r.error,
  createdAt: r.created_at,
});

@Injectable()
export class RecipesRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('recipes');
  }

  async list(accountId: string, limit: number, offset: number): Promise<{ items: Recipe[]; total: number }> {
    const rows = await this.db.rows<RecipeRow & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM ${this.t} WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    );
    // The page's own total (an empty first page: none); counted apart only past the end, as contacts and conversations do.
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && offset > 0) total = Number((await this.db.one<{ n: string }>(`SELECT count(*) AS n FROM ${this.t} WHERE account_id = $1`, [accountId]))!.n);
    return { items: rows.map(toRecipe), total };
  }

  async find(accountId: string, id: string): Promise<Recipe | null> {
    const row = await this.db.one<RecipeRow>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? toRecipe(row) : null;
  }

  /** The recipe, locked until the transaction ends (conditional writes of its draft take turns). */
  async lock(accountId: string, id: string): Promise<Recipe | null> {
    const row = await this.db.one<RecipeRow>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2 FOR UPDATE`, [accountId, id]);
    return row ? toRecipe(row) : null;
  }

  async insert(r: { accountId: string; name: string; draft: RecipeDefinition; webhookSecret: string; createdBy: string }): Promise<Recipe> {
    const row = await this.db.one<RecipeRow>(
      `INSERT INTO ${this.t} (account_id, name, draft, webhook_secret, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [r.accountId, r.name, JSON.stringify(r.draft), r.webhookSecret, r.createdBy],
    );
    return toRecipe(row!);
  }

  async saveDraft(id: string, draft: RecipeDefinition): Promise<Recipe> {
    const row = await this.db.one<RecipeRow>(
      `UPDATE ${this.t} SET draft = $2, draft_revision = draft_revision + 1, draft_updated_at = now(), updated_at = now() WHERE id = $1 RETURNING *`,
      [id, JSON.stringify(draft)],
    );
    return toRecipe(row!);
  }

  async rename(id: string, name: string): Promise<Recipe> {
    const row = await this.db.one<RecipeRow>(`UPDATE ${this.t} SET name = $2, updated_at = now() WHERE id = $1 RETURNING *`, [id, name]);
    return toRecipe(row!);
  }

  /** Stores `definition` as the next version (1, 2, …) and makes it the published one; the version number. */
  async publish(id: string, definition: RecipeDefinition, publishedBy: string | null, rolledBackFrom: number | null): Promise<number> {
    const row = await this.db.one<{ version: number }>(
      `INSERT INTO ${this.db.table('recipe_versions')} (recipe_id, version, definition, rolled_back_from, published_by)
       SELECT $1, COALESCE(max(version), 0) + 1, $2, $3, $4 FROM ${this.db.table('recipe_versions')} WHERE recipe_id = $1
       RETURNING version`,
      [id, JSON.stringify(definition), rolledBackFrom, publishedBy],
    );
    await this.db.affected(`UPDATE ${this.t} SET published_version = $2, trigger = $3, updated_at = now() WHERE id = $1`, [id, row!.version, definition.trigger]);
    return row!.version;
  }

  async setEnabled(id: string, enabled: boolean): Promise<Recipe> {
    const row = await this.db.one<RecipeRow>(`UPDATE ${this.t} SET enabled = $2, updated_at = now() WHERE id = $1 RETURNING *`, [id, enabled]);
    return toRecipe(row!);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id])) === 1;
  }

  async versions(recipeId: string): Promise<RecipeVersion[]> {
    return (await this.db.rows<VersionRow>(`SELECT * FROM ${this.db.table('recipe_versions')} WHERE recipe_id = $1 ORDER BY version DESC`, [recipeId])).map(toVersion);
  }

  async version(recipeId: string, version: number): Promise<RecipeVersion | null> {
    const row = await this.db.one<VersionRow>(`SELECT * FROM ${this.db.table('recipe_versions')} WHERE recipe_id = $1 AND version = $2`, [recipeId, version]);
    return row ? toVersion(row) : null;
  }

  async runs(recipeId: string, limit: number, offset: number): Promise<{ items: RecipeRun[]; total: number }> {
    const rows = await this.db.rows<RunRow & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM ${this.db.table('recipe_runs')} WHERE recipe_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
      [recipeId, limit, offset],
    );
    // As in list: a count apart on an empty first page could see a run stored in between (a total beside no data).
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && offset > 0) total = Number((await this.db.one<{ n: string }>(`SELECT count(*) AS n FROM ${this.db.table('recipe_runs')} WHERE recipe_id = $1`, [recipeId]))!.n);
    return { items: rows.map(toRun), total };
  }

  /** The account's enabled recipes with a published version on `trigger`, oldest first (their actions apply in that order). */
  async active(accountId: string, trigger: Trigger): Promise<ActiveRecipe[]> {
    const rows = await this.db.rows<{ id: string; name: string; version: number; definition: RecipeDefinition; webhook_secret: string }>(
      `SELECT r.id, r.name, v.version, v.definition, r.webhook_secret
         FROM ${this.t} r JOIN ${this.db.table('recipe_versions')} v ON v.recipe_id = r.id AND v.version = r.published_version
        WHERE r.account_id = $1 AND r.trigger = $2 AND r.enabled
        ORDER BY r.created_at, r.id`,
      [accountId, trigger],
    );
    return rows.map((r) => ({ id: r.id, name: r.name, version: r.version, definition: r.definition, webhookSecret: r.webhook_secret }));
  }

  /** `active` of several (account, trigger) pairs in one statement: per pair, in order, its recipes. */
  async activeForMany(keys: Array<{ accountId: string; trigger: Trigger }>): Promise<ActiveRecipe[][]> {
    const distinct = [...new Map(keys.map((k) => [`${k.accountId}:${k.trigger}`, k])).values()];
    const rows = await this.db.rows<{ ord: string; id: string; name: string; version: number; definition: RecipeDefinition; webhook_secret: string }>(
      `SELECT k.ord, r.id, r.name, v.version, v.definition, r.webhook_secret
         FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS k(account_id, trigger, ord)
         JOIN ${this.t} r ON r.account_id = k.account_id AND r.trigger = k.trigger AND r.enabled
         JOIN ${this.db.table('recipe_versions')} v ON v.recipe_id = r.id AND v.version = r.published_version
        ORDER BY k.ord, r.created_at, r.id`,
      [distinct.map((k) => k.accountId), distinct.map((k) => k.trigger)],
    );
    const found = new Map<string, ActiveRecipe[]>(distinct.map((k) => [`${k.accountId}:${k.trigger}`, []]));
    for (const r of rows) {
      const k = distinct[Number(r.ord) - 1];
      found.get(`${k.accountId}:${k.trigger}`)!.push({ id: r.id, name: r.name, version: r.version, definition: r.definition, webhookSecret: r.webhook_secret });
    }
    return keys.map((k) => found.get(`${k.accountId}:${k.trigger}`)!);
  }

  /** Claims the run of a recipe for an event: false when it ran already (a redelivery). */
  async claimRun(r: { accountId: string; recipeId: string; version: number; eventId: string; trigger: string; conversationId: string | null; depth: number }): Promise<string | null> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.db.table('recipe_runs')} (account_id, recipe_id, version, event_id, trigger, conversation_id, depth, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'succeeded') ON CONFLICT (recipe_id, event_id) DO NOTHING RETURNING id`,
      [r.accountId, r.recipeId, r.version, r.eventId, r.trigger, r.conversationId, r.depth],
    );
    return row?.id ?? null;
  }

  async finishRun(id: string, outcome: RunOutcome, actions: ActionResult[], error: string | null): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('recipe_runs')} SET outcome = $2, actions = $3, error = $4 WHERE id = $1`, [id, outcome, JSON.stringify(actions), error]);
  }

  /**
   * The team's next agent, round robin (longest since this kind of assignment, never assigned
   * first) among its active members holding fewer than `cap` open conversations; null when all
   * are full. The team row is locked so that concurrent runs take turns.
   */
  async nextTeamAssignee(teamId: string, cap: number | null): Promise<string | null> {
    await this.db.one(`SELECT id FROM ${this.db.table('teams')} WHERE id = $1 FOR NO KEY UPDATE`, [teamId]);
    const row = await this.db.one<{ user_id: string }>(
      `SELECT m.user_id FROM ${this.db.table('team_members')} m
         JOIN ${this.db.table('users')} u ON u.id = m.user_id AND u.active
         LEFT JOIN ${this.db.table('recipe_assignment_turns')} t ON t.team_id = m.team_id AND t.user_id = m.user_id
        WHERE m.team_id = $1
          AND ($2::int IS NULL OR (SELECT count(*) FROM ${this.db.table('conversations')} c WHERE c.assignee_id = m.user_id AND c.status = 'open') < $2::int)
        ORDER BY t.last_assigned_at NULLS FIRST, m.user_id
        LIMIT 1`,
      [teamId, cap],
    );
    if (!row) return null;
    await this.db.affected(
      `INSERT INTO ${this.db.table('recipe_assignment_turns')} (team_id, user_id, last_assigned_at) VALUES ($1, $2, clock_timestamp())
       ON CONFLICT (team_id, user_id) DO UPDATE SET last_assigned_at = EXCLUDED.last_assigned_at`,
      [teamId, row.user_id],
    );
    return row.user_id;
  }
}
