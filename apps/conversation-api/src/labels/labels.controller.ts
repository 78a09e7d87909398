import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { CreateLabelDto, LabelDto, labelView, UpdateLabelDto } from './dto/label.dto';
import { LabelsService } from './labels.service';

/**
 * The labels catalogue. Read with `conversations:read`; written with `recipes:write` (labels are what
 * recipes add and match; the spec names no permission of their own). Deleting a label leaves it on
 * the conversations that carry it.
 */
@ApiTags('labels')
@Controller('api/v1/labels')
export class LabelsController {
  constructor(private readonly labels: LabelsService) {}

  @Get()
  @RequirePermission('conversations:read')
  @ApiOperation({ summary: 'The account’s labels, by name' })
  @ApiOkEnvelope(LabelDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.labels.list(p.accountId)).map(labelView);
  }

  @Get(':id')
  @RequirePermission('conversations:read')
  @ApiOkEnvelope(LabelDto)
  @ApiErrorAnswer(404, '`LABEL_NOT_FOUND`: no such label in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return labelView(await this.labels.get(p.accountId, id));
  }

  @Post()
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Add a label', description: '409 `LABEL_NAME_TAKEN` (names are unique without regard to case).' })
  @ApiOkEnvelope(LabelDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateLabelDto) {
    return labelView(await this.labels.create(p.accountId, body));
  }

  @Patch(':id')
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Rename, describe or recolour a label', description: 'Renaming does not rename the label on conversations that carry it. 409 `LABEL_NAME_TAKEN`.' })
  @ApiOkEnvelope(LabelDto)
  @ApiErrorAnswer(404, '`LABEL_NOT_FOUND`: no such label in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateLabelDto) {
    return labelView(await this.labels.update(p.accountId, id, body));
  }

  @Delete(':id')
  @RequirePermission('recipes:write')
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`LABEL_NOT_FOUND`: no such label in the caller\'s account (ids of another account answer 404 too)')
  delete(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.labels.delete(p.accountId, id);
  }
}
