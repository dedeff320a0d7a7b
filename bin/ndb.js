#!/usr/bin/env node
// The `ndb` front door. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
import('../dist/cli/ndb.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('ndb: not built yet; run `npm install` (or `npm run build`) in the ndb folder first');
    process.exit(1);
  }
  throw err;
});
