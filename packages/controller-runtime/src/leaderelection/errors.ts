// Errors of leader election, each a class with a stable `code`.

/** The elector's options break one of client-go's rules; the message says which and how to fix it. */
export class LeaderElectionConfigError extends Error {
  override readonly name = "LeaderElectionConfigError";
  readonly code = "ERR_LEADER_ELECTION_CONFIG";
}

/**
 * This replica led and stopped leading without being asked to: the lease was not renewed within
 * `renewDeadlineMs`, or another candidate holds it. Leader work has been told to stop (its signal
 * aborted); the process should exit or start over, as controller-runtime's manager does.
 */
export class LeaderElectionLostError extends Error {
  override readonly name = "LeaderElectionLostError";
  readonly code = "ERR_LEADER_ELECTION_LOST";
  /** `lock` names the lock, `detail` says what happened. */
  constructor(lock: string, detail: string) {
    super(`leader election lost: ${detail} (lock ${lock})`);
  }
}
