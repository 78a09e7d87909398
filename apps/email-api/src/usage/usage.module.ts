import { Module } from '@nestjs/common';
import { References } from './references.service';

@Module({ providers: [References], exports: [References] })
export class UsageModule {}
