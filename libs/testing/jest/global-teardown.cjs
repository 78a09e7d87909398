'use strict';
// Jest globalTeardown: stops the embedded PostgreSQL that global-setup.cjs started, if any. Jest
// runs every project's teardown after all tests, so the first call stops it and later ones no-op.
const { EMBEDDED_KEY } = require('./global-setup.cjs');

module.exports = async function globalTeardown() {
  const embedded = globalThis[EMBEDDED_KEY];
  if (!embedded) return;
  delete globalThis[EMBEDDED_KEY];
  await embedded.stop();
};
