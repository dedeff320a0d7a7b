/**
 * The error the runtime gives for what the user can fix (bad input, nothing to do): the
 * debug adapter, the `ndb debug` REPL and the language server show its message as is.
 *
 * A module of its own because both the timeline (adapter/timeline.ts) and the command queue
 * (adapter/command-queue.ts) raise it, and neither should import the other for it.
 */

/** A user error the client should show as is (bad input, nothing to do). */
export class RuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeError';
  }
}
