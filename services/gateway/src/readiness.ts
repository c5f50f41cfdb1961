/**
 * `/readyz`: whether this replica should get traffic. It is ready once started and until it begins to drain, and
 * depends on nothing outside the process (docs/design.md, "Failure isolation"):
 *
 * Every dependency the gateway has (Redis, membership, boards, files, webhooks) is shared by all its replicas. A
 * readiness that failed with one would take every replica out of the Service at the same moment: callers would get
 * connection refused for the whole API instead of a 503 problem for the operations that need what is down, while
 * most operations could still be served (a cache outage, webhooks or files down), and nothing would be gained,
 * since no other replica could do better. So dependencies are never readiness: each has a circuit breaker that
 * makes its operations fail fast with 503 and Retry-After while it is down, and its state is on the metrics port
 * (`flowboard_dependency_up{dependency}`, `flowboard_dependency_circuit_state{dependency}`).
 */
export function createReadiness() {
  let started = false;
  let stopping = false;
  return {
    isReady(): Promise<boolean> {
      return Promise.resolve(started && !stopping);
    },
    /** Listening: traffic may come. */
    start(): void {
      started = true;
    },
    /** Readiness turns false at once when shutdown begins, so no new traffic is routed here. */
    stop(): void {
      stopping = true;
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
