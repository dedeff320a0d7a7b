/**
 * What each token id writes, for the frame constraint: a special token's name, or the raw
 * bytes of a byte-level BPE token. Bytes, not text: a token may end inside a UTF-8
 * character, and TraceTokenizer.decode would turn that half character into U+FFFD.
 *
 * Read from tokenizer.json (vocabulary entries are GPT-2 byte-level characters) and checked
 * against the tokenizer: every id whose bytes are whole UTF-8 must decode to the same text.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';

const TokenizerVocabSchema = z.object({
  added_tokens: z.array(z.object({ id: z.number().int().nonnegative(), content: z.string() })),
  decoder: z.object({ type: z.literal('ByteLevel') }),
  model: z.object({ vocab: z.record(z.string(), z.number().int().nonnegative()) }),
});

/** GPT-2's byte-level alphabet: byte b is written as this character. */
function byteLevelChars(): Map<string, number> {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const map = new Map<string, number>();
  let next = 256;
  for (let b = 0; b < 256; b++) map.set(String.fromCharCode(printable(b) ? b : next++), b);
  return map;
}

export class TokenTable {
  private constructor(
    private readonly specials: readonly (string | undefined)[],
    private readonly byteStrings: readonly Uint8Array[],
  ) {}

  static async load(dir: string, tokenizer: TraceTokenizer): Promise<TokenTable> {
    const file = TokenizerVocabSchema.parse(JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')));
    const charToByte = byteLevelChars();
    const specials: (string | undefined)[] = new Array<string | undefined>(tokenizer.vocabSize).fill(undefined);
    const bytes: Uint8Array[] = new Array<Uint8Array>(tokenizer.vocabSize).fill(new Uint8Array(0));
    for (const [token, id] of Object.entries(file.model.vocab)) {
      bytes[id] = Uint8Array.from(token, (ch) => {
        const b = charToByte.get(ch);
        if (b === undefined) throw new Error(`tokenizer.json: vocabulary entry ${JSON.stringify(token)} is not byte-level`);
        return b;
      });
    }
    for (const { id, content } of file.added_tokens) specials[id] = content;

    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    for (let id = 0; id < tokenizer.vocabSize; id++) {
      let text: string;
      if (specials[id] !== undefined) text = specials[id]!;
      else {
        try {
          text = strict.decode(bytes[id]!);
        } catch {
          continue; // part of a character: nothing to compare
        }
      }
      if (tokenizer.decode([id]) !== text) throw new Error(`tokenizer.json: token ${id} does not decode as the tokenizer decodes it`);
    }
    return new TokenTable(specials, bytes);
  }

  get size(): number {
    return this.byteStrings.length;
  }

  /** The special token this id is, if it is one. */
  special(id: number): string | undefined {
    return this.specials[id];
  }

  /** The bytes a payload token writes. */
  bytes(id: number): Uint8Array {
    return this.byteStrings[id]!;
  }
}
