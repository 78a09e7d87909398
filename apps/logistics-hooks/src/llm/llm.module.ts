import { Global, Module } from '@nestjs/common';
import { LlmClient } from './llm.client';

/** The model client (`LLM_URL`), shared by the tasks and the portal. */
@Global()
@Module({ providers: [LlmClient], exports: [LlmClient] })
export class LlmModule {}
