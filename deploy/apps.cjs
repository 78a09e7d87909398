'use strict';
// The one table of deployable apps (ARCHITECTURE.md). deploy/generate.cjs renders the Kustomize
// manifests and docker/compose.yml from it; deploy/manifests.spec.ts checks the rendered files
// against it and against the apps/ directory.
//
//   hpa:      stateless API, scaled by CPU (several replicas share nothing but the database,
//             broker and Redis). knowledge-api keeps crawl progress and its Socket.IO rooms in
//             memory, autostart-proxy its idle timers: one replica each, no HPA.
//   database: the app owns a database (and a migration Job).
//   rbac:     the app drives workloads through the Kubernetes API (@platform/containers).
//   worker:   a second Deployment of the same image with extra environment.
const APPS = [
  { name: 'gateway', port: 3000, database: null, hpa: true },
  { name: 'automation-api', port: 3001, database: 'automation', hpa: true },
  { name: 'email-api', port: 3002, database: 'email', hpa: true },
  { name: 'knowledge-api', port: 3003, database: 'knowledge', hpa: false, rbac: true },
  { name: 'auth-api', port: 3004, database: 'auth', hpa: true },
  { name: 'conversation-api', port: 3005, database: 'conversation', hpa: true },
  {
    name: 'transcribe-api',
    port: 3006,
    database: 'transcribe',
    hpa: true,
    env: { TRANSCRIBE_ROLE: 'api' },
    worker: { env: { TRANSCRIBE_ROLE: 'worker' }, terminationGracePeriodSeconds: 120 },
  },
  { name: 'autostart-proxy', port: 3007, database: 'autostart', hpa: false, rbac: true },
  { name: 'logistics-hooks', port: 3008, database: 'logistics', hpa: true },
];

const upperSnake = (name) => name.toUpperCase().replace(/-/g, '_');

module.exports = { APPS, upperSnake };
