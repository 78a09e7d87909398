import { defineEvent } from '@platform/messaging';

/**
 * `logistics.task_classified`: the model refined a task the rules had classified when its email
 * arrived (emitted through the outbox in the transaction that updates the task). Declared here until
 * the contract moves to `libs/messaging/src/contracts/events.ts` with the other typed events.
 */
export interface LogisticsTaskClassifiedData {
  taskId: string;
  priority: string;
  category: string;
  sentiment: string;
  /** `model`: the model's answer changed the task; `rules`: nothing of it was usable, the rules' stand. */
  classifiedBy: 'model' | 'rules';
  previous: { priority: string; category: string; sentiment: string };
}

export const LogisticsTaskClassified = defineEvent<LogisticsTaskClassifiedData>('logistics.task_classified');
