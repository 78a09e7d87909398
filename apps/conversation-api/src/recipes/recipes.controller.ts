import { Body, Controller, Delete, Get, Headers, HttpCode, Param, ParseIntPipe, ParseUUIDPipe, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import type { Response } from 'express';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { PageQueryDto, pageOf } from '../common/pagination';
import { hasPermission } from '../access/permissions';
import { CreateRecipeDto, RecipeDraftDto, RecipeDto, RecipeRunDto, recipeView, RecipeVersionDto, RollbackDto, runView, versionView } from './dto/recipe.dto';
import { RecipesService } from './recipes.service';

const IF_MATCH = { name: 'If-Match', required: true, description: 'The draft’s strong ETag from GET /draft (or the last save). Missing or `*`: 428; weak (`W/…`) or stale: 412.' };
const PRECONDITIONS = [
  ApiResponse({ status: 412, description: '`PRECONDITION_FAILED` (the draft changed since: the answer carries its current ETag) or `WEAK_ETAG_REFUSED`' }),
  ApiResponse({ status: 428, description: '`PRECONDITION_REQUIRED` (no If-Match) or `IF_MATCH_WILDCARD_REFUSED` (`*`)' }),
];
const apply = (...decorators: MethodDecorator[]): MethodDecorator => (target, key, descriptor) => {
  for (const d of decorators) d(target, key, descriptor);
};

@ApiTags('recipes')
@Controller('api/v1/recipes')
export class RecipesController {
  constructor(private readonly recipes: RecipesService) {}

  @Get()
  @RequirePermission('recipes:read')
  @ApiOperation({ summary: 'The account’s recipes, newest first (paginated)' })
  @ApiOkEnvelope(RecipeDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal, @Query() query: PageQueryDto) {
    const { page, limit, offset } = pageOf(query);
    const { items, total } = await this.recipes.list(p.accountId, limit, offset);
    return { items: items.map((r) => recipeView(r, hasPermission(p.permissions, 'recipes:write'))), total, page, limit };
  }

  @Post()
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Create a recipe with an empty draft', description: 'Enabled, never published: it runs once a version is published. The answer holds the `webhook_secret` signing its webhook calls.' })
  @ApiOkEnvelope(RecipeDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateRecipeDto) {
    return recipeView(await this.recipes.create(p, body.name), true);
  }

  @Get(':id')
  @RequirePermission('recipes:read')
  @ApiOkEnvelope(RecipeDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return recipeView(await this.recipes.get(p.accountId, id), hasPermission(p.permissions, 'recipes:write'));
  }

  @Patch(':id')
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Rename a recipe' })
  @ApiOkEnvelope(RecipeDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async rename(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: CreateRecipeDto) {
    return recipeView(await this.recipes.rename(p.accountId, id, body.name), true);
  }

  @Get(':id/draft')
  @RequirePermission('recipes:read')
  @ApiOperation({ summary: 'The draft, with its ETag header' })
  @ApiOkEnvelope(RecipeDraftDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async draft(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Res({ passthrough: true }) res: Response) {
    const { draft, etag } = await this.recipes.draft(p.accountId, id);
    res.setHeader('ETag', etag);
    return draft;
  }

  @Put(':id/draft')
  @RequirePermission('recipes:write')
  @ApiOperation({
    summary: 'Save the draft (If-Match required)',
    description: 'Replaces the draft; answers it with the new ETag. A draft that does not validate: 422 `VALIDATION_ERROR` whose `errors` name the path of each bad node (`conditions[0].pattern`, `actions[1].url`). Drafts may be incomplete (no trigger or action yet).',
  })
  @ApiHeader(IF_MATCH)
  @ApiBody({ type: RecipeDraftDto })
  @apply(...PRECONDITIONS)
  @ApiOkEnvelope(RecipeDraftDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async saveDraft(
    @CurrentPrincipal() p: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Body() body: Record<string, unknown>,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { draft, etag } = await this.recipes.saveDraft(p.accountId, id, ifMatch, body);
    res.setHeader('ETag', etag);
    return draft;
  }

  @Post(':id/publish')
  @HttpCode(201)
  @RequirePermission('recipes:publish')
  @ApiOperation({
    summary: 'Publish the draft as the next version (If-Match required)',
    description: 'The draft named by If-Match becomes an immutable numbered version, the one that runs. It needs a trigger and an action, and what it names (labels, canned responses, agents, teams, channels) must exist: 422 with the path of each problem otherwise.',
  })
  @ApiHeader(IF_MATCH)
  @apply(...PRECONDITIONS)
  @ApiOkEnvelope(RecipeVersionDto, { status: 201 })
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async publish(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Headers('if-match') ifMatch: string | undefined, @Res({ passthrough: true }) res: Response) {
    const { version, etag } = await this.recipes.publish(p, id, ifMatch);
    res.setHeader('ETag', etag);
    return versionView(version);
  }

  @Get(':id/versions')
  @RequirePermission('recipes:read')
  @ApiOperation({ summary: 'Published versions, newest first' })
  @ApiOkEnvelope(RecipeVersionDto, { isArray: true })
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async versions(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return (await this.recipes.versions(p.accountId, id)).map(versionView);
  }

  @Get(':id/versions/:version')
  @RequirePermission('recipes:read')
  @ApiOperation({ summary: 'One published version', description: '404 `VERSION_NOT_FOUND`.' })
  @ApiOkEnvelope(RecipeVersionDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too); `VERSION_NOT_FOUND`')
  async version(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Param('version', ParseIntPipe) version: number) {
    return versionView(await this.recipes.version(p.accountId, id, version));
  }

  @Post(':id/rollback')
  @HttpCode(201)
  @RequirePermission('recipes:publish')
  @ApiOperation({
    summary: 'Restore a version',
    description: 'The version becomes the draft (new ETag in the answer) and is published as the next version, with `rolled_back_from`. If-Match is optional here; when sent it is checked like on publish.',
  })
  @ApiHeader({ ...IF_MATCH, required: false })
  @apply(...PRECONDITIONS)
  @ApiOkEnvelope(RecipeVersionDto, { status: 201 })
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async rollback(
    @CurrentPrincipal() p: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: RollbackDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { version, etag } = await this.recipes.rollback(p, id, body.version, ifMatch);
    res.setHeader('ETag', etag);
    return versionView(version);
  }

  @Post(':id/disable')
  @HttpCode(200)
  @RequirePermission('recipes:publish')
  @ApiOperation({ summary: 'Stop running the recipe (its versions stay)' })
  @ApiOkEnvelope(RecipeDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async disable(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return recipeView(await this.recipes.setEnabled(p.accountId, id, false), true);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @RequirePermission('recipes:publish')
  @ApiOperation({ summary: 'Run the published version again' })
  @ApiOkEnvelope(RecipeDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async enable(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return recipeView(await this.recipes.setEnabled(p.accountId, id, true), true);
  }

  @Delete(':id')
  @RequirePermission('recipes:publish')
  @ApiOperation({ summary: 'Delete a recipe with its versions and run log' })
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  delete(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.recipes.delete(p.accountId, id);
  }

  @Get(':id/runs')
  @RequirePermission('recipes:read')
  @ApiOperation({ summary: 'The recipe’s runs, newest first (paginated)', description: 'One per triggering event whose conditions held (or that a loop guard stopped), with each action’s outcome.' })
  @ApiOkEnvelope(RecipeRunDto, { isArray: true })
  @ApiErrorAnswer(404, '`RECIPE_NOT_FOUND`: no such recipe in the caller\'s account (ids of another account answer 404 too)')
  async runs(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Query() query: PageQueryDto) {
    const { page, limit, offset } = pageOf(query);
    const { items, total } = await this.recipes.runs(p.accountId, id, limit, offset);
    return { items: items.map(runView), total, page, limit };
  }
}
