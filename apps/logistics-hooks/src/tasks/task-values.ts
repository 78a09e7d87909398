/** The spec's task values (part F, "Task"). */
export const PRIORITIES = ['HIGH', 'MEDIUM', 'LOW'] as const;
export const CATEGORIES = ['MISSING_DOCS', 'PAYMENT', 'TRACKING', 'CUSTOMS', 'GENERAL'] as const;
export const SENTIMENTS = ['NEUTRAL', 'URGENT', 'FRUSTRATED'] as const;
export const STATUSES = ['PENDING', 'IN_PROGRESS', 'DONE'] as const;

export type Priority = (typeof PRIORITIES)[number];
export type Category = (typeof CATEGORIES)[number];
export type Sentiment = (typeof SENTIMENTS)[number];
export type TaskStatus = (typeof STATUSES)[number];

/** At most this many tasks are kept; inserting more removes the oldest. */
export const MAX_TASKS = 500;
