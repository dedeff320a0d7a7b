export * from './tokens.js';
export * from './state.js';
export * from './layout.js';
export * from './serialize.js';
export * from './parse.js';
export * from './truncate.js';
export { sameFrame, scopeKept } from './scope.js';
