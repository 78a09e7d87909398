import { Injectable } from '@nestjs/common';
import { conflict, notFound } from '../common/errors';
import type { CreateLabelDto, UpdateLabelDto } from './dto/label.dto';
import { LabelsRepository, type Label } from './labels.repository';

export type { Label } from './labels.repository';

/** The account's labels catalogue: the labels recipes add and match (conversations keep label names). */
@Injectable()
export class LabelsService {
  constructor(private readonly labels: LabelsRepository) {}

  list(accountId: string): Promise<Label[]> {
    return this.labels.list(accountId);
  }

  async get(accountId: string, id: string): Promise<Label> {
    const label = await this.labels.find(accountId, id);
    if (!label) throw notFound('label');
    return label;
  }

  /** The names of `names` (without case) not in the catalogue. */
  unknownNames(accountId: string, names: string[]): Promise<string[]> {
    return this.labels.unknownNames(accountId, names);
  }

  async create(accountId: string, dto: CreateLabelDto): Promise<Label> {
    const label = await this.labels.insert(accountId, { name: dto.name, description: dto.description ?? null, color: dto.color ?? '#1f93ff' });
    if (!label) throw taken(dto.name);
    return label;
  }

  async update(accountId: string, id: string, dto: UpdateLabelDto): Promise<Label> {
    const label = await this.labels.update(accountId, id, dto);
    if (label === 'taken') throw taken(dto.name!);
    if (!label) throw notFound('label');
    return label;
  }

  async delete(accountId: string, id: string): Promise<{ deleted: true }> {
    if (!(await this.labels.delete(accountId, id))) throw notFound('label');
    return { deleted: true };
  }
}

const taken = (name: string) => conflict('LABEL_NAME_TAKEN', `A label named ${name} exists`, 'Label names are unique without regard to case; choose another name.');
