export { testServices, uniqueSuffix, DEFAULT_TEST_DATABASE_URL, type TestServices } from './services';
export { createTestDatabase, type TestDatabase } from './test-database';
export { createTestApp, type TestApp } from './test-app';
export { buildForTest, databaseEnv, freePort, spawnBuiltApp, startBuiltApp, waitHealthy, type BuiltApp, type BuiltAppOptions, type SpawnedApp } from './child-process';
export { createTestRabbit, type TestRabbit } from './test-rabbit';
export { createTestRedisPrefix, deleteKeysByPrefix, testRedisDb, type TestRedisPrefix } from './test-redis';
export * from './fakes/transcription-engine';
export * from './fakes/wav';
export * from './fakes/pdf';
export * from './fakes/graph-api';
export * from './fakes/tcp-proxy';
export * from './fakes/faulty-servers';
export * from './fakes/smtp-sink';
export * from './fakes/dns-server';
export * from './fakes/dns-lookup';
export * from './fakes/ssrf-targets';
export * from './fakes/oauth-provider';
export * from './fakes/docker-engine';
export * from './fakes/kubernetes-api';
export * from './fakes/youtube-api';
export { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './browser';
export { garbageCollector } from './gc';
export { externalTool, locate as findProgram } from './external-tool';
export { sendRaw, sendSlowly, malformedRequests, type RawAnswer, type SlowAnswer, type SlowOptions } from './raw-http';
export * from './fakes/dcsa-tnt';
export * from './fakes/tracking-feed';
export * from './fakes/rerank-api';
export * from './fakes/dcsa-sample';
export {
  describeAuthorizationMatrix,
  operationsOf,
  fetchOperations,
  fetchDocument,
  undocumentedStatuses,
  compareRowsToOperations,
  leakedSecrets,
  secretsToLookFor,
  rowProblems,
  methodOf,
  CALLERS,
  type Caller,
  type MatrixRequest,
  type MatrixRow,
  type MatrixSetup,
  type OpenApiDocument,
} from './authorization-matrix';
