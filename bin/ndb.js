#!/usr/bin/env node
// The `ndb` front door. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
const entry = new URL('../dist/cli/ndb.js', import.meta.url);
import(entry.href).catch((err) => {
  // Only dist/ itself missing means "not built"; any other missing module is a real error.
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(entry.pathname)) {
    console.error('ndb: not built yet; run `npm install` (or `npm run build`) in the ndb folder first');
    process.exit(1);
  }
  throw err;
});
