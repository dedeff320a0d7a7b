/**
 * Payload escaping: a repr or a source line may contain the text `<|`, which would read as
 * the start of a token. Every `<` followed by k backslashes and a `|` gets one more
 * backslash; unescaping removes one. The map is a bijection, and escaped text never holds
 * `<|`, so the parser can split on tokens without looking inside payloads.
 */

const ESCAPED = /<(\\*)\|/g;
const ESCAPED_BACK = /<(\\+)\|/g;

export function escapePayload(text: string): string {
  return text.replace(ESCAPED, (_m, slashes: string) => `<${slashes}\\|`);
}

export function unescapePayload(text: string): string {
  return text.replace(ESCAPED_BACK, (_m, slashes: string) => `<${slashes.slice(1)}|`);
}
