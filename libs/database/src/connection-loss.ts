// The rule lives with the error filters, which apply it to every error (@platform/errors); the
// database lib re-exports it where its users have always found it.
export { isDatabaseConnectionLoss, databaseUnavailable, asDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS } from '@platform/errors';
