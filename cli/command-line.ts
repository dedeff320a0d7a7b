/**
 * The command line's parsing, on commander (README, "The command line"): each command
 * declares its flags once (name, value, help text) beside the function that runs it, and
 * this file turns the declarations into commander commands. commander gives the help of
 * every command and subcommand (`ndb debug --help`, `ndb help data build`), `--version`,
 * option values that start with `-` (`--args -1`: an option that takes a value takes the
 * next word), and suggestions for typos; every parse error becomes the same one line,
 * `ndb: error: …`, and exit code 2, as the commands' own errors are.
 */
import { Command, CommanderError, Option } from 'commander';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** The value's name in the help (`--entry NAME`); string flags only. */
  value?: string;
  description: string;
  /** Parsed but not listed (flags other programs pass, such as an editor's `--clientProcessId`). */
  hidden?: boolean;
}

export type FlagSpecs = Record<string, FlagSpec>;

/** The parsed flags by their names on the command line (`max-events`), as node:util's parseArgs gave them. */
export type FlagValues<F extends FlagSpecs> = { [K in keyof F]: F[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined };

export interface Parsed<F extends FlagSpecs> {
  values: FlagValues<F>;
  positionals: string[];
}

export type UsageErrorFactory = (message: string) => Error;

export interface CommandSpec<F extends FlagSpecs> {
  name: string;
  /** The positional arguments as commander writes them: `<FILE>`, `[FILES...]`. */
  args?: string;
  /** One line for the list of commands. */
  summary: string;
  /** The whole help text of the command (after the usage line and before the options). */
  description: string;
  flags: F;
  run(parsed: Parsed<F>, usage: UsageErrorFactory): Promise<void>;
}

/** A command of any flags, as the program lists them. */
export type AnyCommandSpec = CommandSpec<FlagSpecs>;

/** A command's spec, its `run` checked against its own flags; then one of the program's commands. */
export function defineCommand<F extends FlagSpecs>(spec: CommandSpec<F>): AnyCommandSpec {
  return spec as unknown as AnyCommandSpec;
}

/** Adds the command to `parent`; its action calls `spec.run` with the flags by their names. */
export function addCommand(parent: Command, spec: AnyCommandSpec, usage: UsageErrorFactory): Command {
  const cmd = parent.command(spec.name).summary(spec.summary).description(paragraphs(spec.description));
  for (const a of spec.args ? spec.args.split(/\s+/) : []) cmd.argument(a);
  const options: [string, Option][] = [];
  for (const [name, flag] of Object.entries(spec.flags)) {
    const option = new Option(flag.type === 'string' ? `--${name} <${flag.value ?? 'VALUE'}>` : `--${name}`, flag.description);
    if (flag.hidden) option.hideHelp();
    cmd.addOption(option);
    options.push([name, option]);
  }
  cmd.action(async (...received: unknown[]) => {
    // commander passes the positionals (a variadic one as an array), the options, the command.
    const positionals = received.slice(0, -2).flatMap((p) => (p === undefined ? [] : Array.isArray(p) ? (p as string[]) : [p as string]));
    const opts = cmd.opts();
    const values = Object.fromEntries(options.map(([name, option]) => [name, opts[option.attributeName()]])) as FlagValues<FlagSpecs>;
    await spec.run({ values, positionals }, usage);
  });
  return cmd;
}

/** Lines joined into paragraphs for commander to wrap to the terminal; indented lines stay as written (commander leaves such text alone). */
function paragraphs(text: string): string {
  return /\n\s/.test(text) ? text : text.replace(/\n/g, ' ');
}

/** A group of subcommands (`ndb data`, `ndb eval`): its help lists them; an unknown one is a usage error with a suggestion. */
export function addGroup(parent: Command, name: string, summary: string): Command {
  return parent.command(name).summary(summary).description(summary);
}

/** commander's settings for every command: its errors are thrown, not printed (run() says them in one line). */
export function configure(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({ writeErr: () => undefined, outputError: () => undefined });
  cmd.showSuggestionAfterError(true);
  cmd.helpOption('-h, --help', 'show this help');
  for (const sub of cmd.commands) configure(sub);
}

/**
 * Parses and runs; a parse error is one line for `ndb: error:` (exit code 2), help and the
 * version exit 0. Returns normally when the command ran (or help was asked for).
 */
export async function runProgram(program: Command, argv: string[], usage: UsageErrorFactory): Promise<void> {
  configure(program);
  // `ndb` alone: the help, on stdout (commander would call it an error).
  if (argv.length === 0) {
    program.outputHelp();
    return;
  }
  // `ndb help data build`: commander's help command looks one level down only.
  if (argv[0] === 'help' && argv.length > 1) {
    const known = helpTarget(program, argv.slice(1));
    if (known) {
      known.outputHelp();
      return;
    }
    // An unknown name: parsing the path up to it gives commander's error and suggestion
    // (and runs nothing, as that name is no command).
    argv = argv.slice(1);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // --help, --version, `ndb help [COMMAND]`: done.
    if (err.exitCode === 0) return;
    throw usage(commanderMessage(err, commandPath(program, argv)));
  }
}

/** commander's message in ndb's style: one line, no `error:` of its own, the suggestion in parentheses. */
function commanderMessage(err: CommanderError, path: string[]): string {
  const lines = err.message.split('\n').map((l) => l.trim()).filter(Boolean);
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(lines[1] ?? '')?.[1];
  const hint = suggestion ? ` (did you mean ${suggestion}?)` : '';
  const group = path.join(' ');
  if (err.code === 'commander.unknownCommand') {
    const name = /unknown command '(.*)'/.exec(lines[0] ?? '')?.[1] ?? '';
    return group ? `unknown ${group} command ${JSON.stringify(name)}${hint}; run \`ndb ${group} --help\`` : `unknown command ${JSON.stringify(name)}${hint}; run \`ndb help\``;
  }
  // A group without its subcommand (`ndb data`).
  if (err.code === 'commander.help') return `\`ndb ${group}\` needs a command; run \`ndb ${group} --help\` for the list`;
  const text = (lines[0] ?? err.message).replace(/^error: /, '').replace(/\.$/, '');
  return `${text}${hint}${group ? `; see \`ndb ${group} --help\`` : ''}`;
}

/** The commands named at the start of argv (`data build`), as far as they are known. */
function commandPath(program: Command, argv: string[]): string[] {
  const path: string[] = [];
  let cmd = program;
  for (const word of argv) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    path.push(sub.name());
    cmd = sub;
  }
  return path;
}

/** The command `ndb help WORDS...` names, or null when a word is not a subcommand of the one before. */
function helpTarget(program: Command, words: string[]): Command | null {
  let cmd = program;
  for (const word of words) {
    if (cmd.commands.length === 0) return cmd;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return null;
    cmd = sub;
  }
  return cmd;
}
