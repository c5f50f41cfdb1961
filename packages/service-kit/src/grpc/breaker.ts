import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  IsolatedCircuitError,
  type CircuitBreakerPolicy,
  type IDisposable,
} from 'cockatiel';
import { DomainError } from '../errors';

/**
 * A circuit breaker per dependency (an upstream's gRPC channel, files' HTTP port, Redis): once the dependency is
 * known to be down, the operations that need it fail at once with 503 and `Retry-After` instead of each waiting
 * for its deadline, and the ones that don't need it never notice (docs/design.md, "Failure isolation").
 *
 * The state machine is cockatiel's `CircuitBreakerPolicy` (closed → open → half-open → closed, and "isolated":
 * held open by hand), driven from two sides:
 *
 * - **Calls**: `failuresToOpen` consecutive calls that failed *because of the dependency* (the caller's
 *   `isFailure`: unreachable or silent until the deadline) open it; any answer, even an error the dependency chose
 *   (NotFound...), closes the count. So a single slow call under load never opens it. After `halfOpenAfterMs`
 *   one trial call may pass; its outcome closes or re-opens the circuit.
 * - **An active probe** (`probeResult`, e.g. grpc.health.v1 Check with a short deadline): `probeFailuresToOpen`
 *   failed probes in a row hold the circuit open (cockatiel's isolation), and the first good probe lets it go,
 *   closed. So a dependency that went away is known down within a probe or two, before any user request waited
 *   out its deadline, and one that came back is used again within a probe interval, no user request needed.
 *
 * One thing is ours rather than cockatiel's: while the trial call of a half-open circuit runs, cockatiel makes the
 * other calls wait for it (up to its deadline, against a peer that may hang); here they fail fast like an open
 * circuit's.
 */
export interface BreakerOptions {
  /** What the breaker guards, as logs, metrics and problem details name it: `boards`, `files-http`, `redis`. */
  name: string;
  /** Consecutive failed calls that open the circuit. */
  failuresToOpen?: number;
  /** Consecutive failed probes that hold it open. */
  probeFailuresToOpen?: number;
  /** How long a circuit opened by calls refuses everything before one trial call may pass. */
  halfOpenAfterMs?: number;
  /** How often the probe asks (what `Retry-After` says while the probe holds the circuit open). */
  probeIntervalMs?: number;
}

export const BREAKER_DEFAULTS = {
  failuresToOpen: 5,
  probeFailuresToOpen: 2,
  halfOpenAfterMs: 5_000,
  probeIntervalMs: 1_000,
} as const;

export type BreakerState = 'closed' | 'open' | 'half-open';

/** The failure of an operation refused because its dependency is known to be down: 503, with `Retry-After`. */
export class DependencyUnavailableError extends DomainError {
  constructor(
    readonly dependency: string,
    readonly retryAfterSeconds: number,
    cause?: unknown,
  ) {
    super('Unavailable', 'A dependency is unavailable', cause === undefined ? {} : { cause });
  }
}

export class Breaker {
  readonly name: string;
  private readonly options: Required<Omit<BreakerOptions, 'name'>>;
  private readonly policy: CircuitBreakerPolicy;
  private readonly counter: ConsecutiveBreaker;
  private probeFailures = 0;
  private isolation: IDisposable | undefined;
  private openedAt = 0;
  private readonly listeners = new Set<(state: BreakerState) => void>();
  private readonly refusedListeners = new Set<() => void>();
  private readonly probeListeners = new Set<(ok: boolean) => void>();
  private lastProbeOk: boolean | undefined;

  constructor(options: BreakerOptions) {
    this.name = options.name;
    this.options = { ...BREAKER_DEFAULTS, ...stripUndefined(options) };
    this.counter = new ConsecutiveBreaker(this.options.failuresToOpen);
    // Only the errors the caller's `isFailure` names reach cockatiel as failures (see run()).
    this.policy = circuitBreaker(
      handleWhen((error) => error instanceof CountedFailure),
      { halfOpenAfter: this.options.halfOpenAfterMs, breaker: this.counter },
    );
    this.policy.onStateChange((state) => {
      if (state === CircuitState.Open || state === CircuitState.Isolated) this.openedAt = Date.now();
      const now = this.state();
      for (const listener of this.listeners) listener(now);
    });
  }

  state(): BreakerState {
    switch (this.policy.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half-open';
      default:
        return 'open';
    }
  }

  /** Whether calls are refused right now without trying (open, or half-open with its trial under way). */
  isRefusing(): boolean {
    const state = this.policy.state;
    if (state === CircuitState.Isolated || state === CircuitState.HalfOpen) return true;
    if (state === CircuitState.Open) return Date.now() - this.openedAt < this.options.halfOpenAfterMs;
    return false;
  }

  /** The last probe's verdict (undefined before the first); for the `dependency_up` gauge. */
  probeOk(): boolean | undefined {
    return this.lastProbeOk;
  }

  /** Seconds until the dependency is worth asking again: the next probe, or the end of the open period. */
  retryAfterSeconds(): number {
    const ms =
      this.policy.state === CircuitState.Open
        ? this.openedAt + this.options.halfOpenAfterMs - Date.now()
        : this.options.probeIntervalMs;
    return Math.max(1, Math.ceil(ms / 1000));
  }

  /** The error an operation refused by this breaker fails with. */
  unavailable(cause?: unknown): DependencyUnavailableError {
    return new DependencyUnavailableError(this.name, this.retryAfterSeconds(), cause);
  }

  /**
   * Runs `call` unless the circuit is open (then rejects at once with DependencyUnavailableError). Its failures
   * that `isFailure` blames on the dependency count towards opening; its other outcomes, answers of the
   * dependency, reset the count. What `call` resolves or rejects with is passed on unchanged.
   */
  async run<T>(call: () => Promise<T>, isFailure: (error: unknown) => boolean): Promise<T> {
    if (this.isRefusing()) throw this.refused();
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = await this.policy.execute(async () => {
        try {
          return { value: await call() };
        } catch (error) {
          if (isFailure(error)) throw new CountedFailure(error);
          return { error }; // the dependency answered: not its failure
        }
      });
    } catch (thrown) {
      if (thrown instanceof CountedFailure) throw thrown.error;
      // Refused by cockatiel itself: the circuit opened between our check and the call.
      if (thrown instanceof BrokenCircuitError || thrown instanceof IsolatedCircuitError)
        throw this.refused();
      throw thrown;
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Refuses an operation without trying it: its error, counted. */
  refused(): DependencyUnavailableError {
    for (const listener of this.refusedListeners) listener();
    return this.unavailable();
  }

  /** A probe's verdict: enough failures in a row hold the circuit open; a good one lets it go. */
  probeResult(ok: boolean): void {
    this.lastProbeOk = ok;
    for (const listener of this.probeListeners) listener(ok);
    if (ok) {
      this.probeFailures = 0;
      const isolation = this.isolation;
      this.isolation = undefined;
      if (isolation) {
        this.counter.state = 0; // closed afresh: the failures that came before the isolation are history
        isolation.dispose();
      }
      return;
    }
    this.probeFailures += 1;
    if (this.probeFailures >= this.options.probeFailuresToOpen && !this.isolation)
      this.isolation = this.policy.isolate();
  }

  /** Called for every operation refused without trying. */
  onRefused(listener: () => void): void {
    this.refusedListeners.add(listener);
  }

  /** Called with every probe's verdict. */
  onProbe(listener: (ok: boolean) => void): void {
    this.probeListeners.add(listener);
  }

  /** Called on every change of state (closed, open, half-open). */
  onStateChange(listener: (state: BreakerState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A failure the caller blamed on the dependency, carried through cockatiel to be counted. */
class CountedFailure extends Error {
  constructor(readonly error: unknown) {
    super('dependency failure');
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
