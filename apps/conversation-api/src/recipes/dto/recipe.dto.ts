import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { ACTION_TYPES, CONDITION_TYPES, TRIGGERS, type RecipeDefinition } from '../recipe-definition';
import type { ActionResult, Recipe, RecipeRun, RecipeVersion } from '../recipes.repository';

const CONDITIONS_DOC = [
  'Each condition is an object with a `type`:',
  '`text_contains` {value, case_sensitive?} and `text_matches` {pattern (a regular expression of at most 200 characters; nested repetitions refused), case_sensitive?} on the message text (message_created only);',
  '`channel` {channel_ids}; `contact_attribute` {key (a custom attribute, or name, email, phone, identifier), operator: equals | not_equals | contains | present | absent, value?};',
  '`label` {operator: has | lacks, label (in the catalogue)}; `priority` {priorities: low | medium | high | urgent | none}; `status` {statuses};',
  '`message_type` {message_types: incoming | outgoing}; `business_hours` {within: true | false} (the account’s hours on the wall clock of its time zone, at the time of the event).',
].join(' ');

const ACTIONS_DOC = [
  'Each action is an object with a `type`, taken in order:',
  '`assign_agent` {user_id}; `assign_team` {team_id, round_robin? (default true: the next member, longest since a recipe assigned them, among those holding fewer than `cap` open conversations), cap?};',
  '`add_label` {label (in the catalogue)}; `reply` {canned_response_id} (variables filled in, sent through the channel by the delivery worker); `out_of_office_reply` {} (the account’s message, when enabled);',
  '`set_priority` {priority: low | medium | high | urgent | null}; `snooze` {minutes}; `resolve` {};',
  '`webhook` {url}: POST of the event as JSON, signed `X-Recipe-Signature: sha256=<HMAC-SHA256 of the body with the recipe’s webhook_secret>`, with `X-Recipe-Run-Id`; only public addresses (checked when saved and again when connecting).',
].join(' ');

/** The body of PUT /recipes/{id}/draft and of GET /recipes/{id}/draft (validated by checkDefinition: unknown properties refused). */
export class RecipeDraftDto {
  @ApiProperty({ enum: TRIGGERS, nullable: true, description: 'The conversation event the recipe runs on; null in a new draft (required to publish)' })
  trigger: string | null;

  @ApiPropertyOptional({ enum: ['all', 'any'], default: 'all', description: 'Whether all conditions must hold or any one' })
  match: 'all' | 'any';

  @ApiProperty({ type: 'array', items: { type: 'object', properties: { type: { type: 'string', enum: [...CONDITION_TYPES] } }, additionalProperties: true }, maxItems: 20, description: CONDITIONS_DOC })
  conditions: Array<Record<string, unknown>>;

  @ApiProperty({ type: 'array', items: { type: 'object', properties: { type: { type: 'string', enum: [...ACTION_TYPES] } }, additionalProperties: true }, maxItems: 10, description: `${ACTIONS_DOC} At least one to publish.` })
  actions: Array<Record<string, unknown>>;
}

export class RecipeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Route billing questions' }) name: string;
  @ApiProperty({ description: 'Disabled recipes keep their versions but do not run' }) enabled: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'The version that runs; null until published' }) published_version: number | null;
  @ApiProperty({ enum: TRIGGERS, nullable: true, description: 'The published version’s trigger' }) trigger: string | null;
  @ApiProperty({ description: 'Revision of the draft (its ETag is `"<id>.<revision>"`)' }) draft_revision: number;
  @ApiProperty({ format: 'date-time' }) draft_updated_at: string;
  @ApiPropertyOptional({ description: 'Key of the webhook signatures; shown to callers holding recipes:write' }) webhook_secret?: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const recipeView = (r: Recipe, withSecret: boolean): RecipeDto => ({
  id: r.id,
  name: r.name,
  enabled: r.enabled,
  published_version: r.publishedVersion,
  trigger: r.trigger,
  draft_revision: r.draftRevision,
  draft_updated_at: r.draftUpdatedAt.toISOString(),
  ...(withSecret ? { webhook_secret: r.webhookSecret } : {}),
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

export class RecipeVersionDto {
  @ApiProperty({ format: 'uuid' }) recipe_id: string;
  @ApiProperty({ example: 3 }) version: number;
  @ApiProperty({ type: RecipeDraftDto }) definition: RecipeDefinition;
  @ApiProperty({ type: Number, nullable: true, description: 'The version this one restored (POST /rollback)' }) rolled_back_from: number | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) published_by: string | null;
  @ApiProperty({ format: 'date-time' }) published_at: string;
}

export const versionView = (v: RecipeVersion): RecipeVersionDto => ({
  recipe_id: v.recipeId,
  version: v.version,
  definition: v.definition,
  rolled_back_from: v.rolledBackFrom,
  published_by: v.publishedBy,
  published_at: v.publishedAt.toISOString(),
});

export class ActionResultDto implements ActionResult {
  @ApiProperty({ enum: ACTION_TYPES }) type: string;
  @ApiProperty({ enum: ['done', 'skipped', 'failed'] }) outcome: 'done' | 'skipped' | 'failed';
  @ApiPropertyOptional() detail?: string;
}

export class RecipeRunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() version: number;
  @ApiProperty({ format: 'uuid', description: 'The conversation event that triggered it (each runs a recipe at most once)' }) event_id: string;
  @ApiProperty({ enum: TRIGGERS }) trigger: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) conversation_id: string | null;
  @ApiProperty({ description: 'How many recipe actions led to the event (0: a person or a contact)' }) depth: number;
  @ApiProperty({ enum: ['succeeded', 'failed', 'loop_stopped'], description: 'failed: an action failed (the others still ran); loop_stopped: the event came from this recipe’s own action, or from too long a chain of recipes' })
  outcome: string;
  @ApiProperty({ type: [ActionResultDto] }) actions: ActionResult[];
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const runView = (r: RecipeRun): RecipeRunDto => ({
  id: r.id,
  version: r.version,
  event_id: r.eventId,
  trigger: r.trigger,
  conversation_id: r.conversationId,
  depth: r.depth,
  outcome: r.outcome,
  actions: r.actions,
  error: r.error,
  created_at: r.createdAt.toISOString(),
});

export class CreateRecipeDto {
  @ApiProperty({ example: 'Route billing questions' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}

export class RollbackDto {
  @ApiProperty({ example: 1, description: 'The version to restore: it becomes the draft and is published as the next version' })
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  version: number;
}
