import { Injectable } from '@nestjs/common';
import { EventConsumer, LogisticsErrorReported, OnEvent, type EventEnvelope, type LogisticsErrorReportedData } from '@platform/messaging';
import { ErrorRecordsRepository } from './error-records.repository';
import { ErrorsGateway } from './errors.gateway';

/**
 * `logistics.error_reported` → the dashboards. One replica takes each event from the shared queue and
 * emits it through the Socket.IO adapter, which (with REDIS_URL) delivers it to the dashboards
 * connected to every replica. The record is read again so the dashboards get its current state; a
 * record deleted meanwhile is not announced.
 */
@Injectable()
@EventConsumer('logistics-hooks.errors')
export class ErrorEventsConsumer {
  constructor(
    private readonly records: ErrorRecordsRepository,
    private readonly gateway: ErrorsGateway,
  ) {}

  @OnEvent(LogisticsErrorReported)
  async errorReported(event: EventEnvelope<LogisticsErrorReportedData>): Promise<void> {
    const record = await this.records.findById(event.data.errorId);
    if (!record) return;
    this.gateway.broadcast(event.data.isNew ? 'error_created' : 'error_updated', record);
  }
}
