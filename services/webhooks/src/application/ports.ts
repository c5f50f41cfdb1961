import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import type { AttemptResult } from '../domain/attempt-result';
import type { WebhookTarget } from '../domain/webhook-url';

/** Ports the use cases depend on; src/db, src/http and src/render implement them, unit tests use fakes. */

export interface WebhookRecord {
  id: number;
  projectId: number;
  url: string;
  /** Empty = every type. */
  eventTypes: string[];
  active: boolean;
  description: string;
  /** '' unless the service deactivated it. */
  disabledReason: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewWebhook {
  projectId: number;
  url: string;
  eventTypes: string[];
  active: boolean;
  description: string;
  /** `whsec_…`; the store seals it. */
  secret: string;
}

export interface WebhookChanges {
  url?: string;
  eventTypes?: string[];
  active?: boolean;
  description?: string;
}

export interface WebhookStore {
  /** Inserts it with its secret sealed; FailedPrecondition when the project has `maxPerProject` already. */
  create(webhook: NewWebhook, maxPerProject: number): Promise<WebhookRecord>;
  /** A project's webhooks by id. */
  list(projectId: number): Promise<WebhookRecord[]>;
  /** Undefined when absent or in another project. */
  find(projectId: number, webhookId: number): Promise<WebhookRecord | undefined>;
  /**
   * In one transaction: applies the changes; re-activation clears the disabled reason; deactivation cancels the
   * webhook's pending deliveries (failed, redeliverable). Undefined when absent or in another project.
   */
  update(projectId: number, webhookId: number, changes: WebhookChanges): Promise<WebhookRecord | undefined>;
  /** With its deliveries; false when absent or in another project. */
  delete(projectId: number, webhookId: number): Promise<boolean>;
  /** A deleted project: its webhooks, their deliveries and its events. Idempotent; answers the webhooks removed. */
  deleteProject(projectId: number): Promise<number>;
}

/** An event as stored: the body is the exact JSON every attempt sends. */
export interface StoredEvent {
  id: string;
  projectId: number;
  type: string;
  subject: string;
  occurredAt: Date;
  body: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  attempt: number;
  status: 'succeeded' | 'failed';
  statusCode: number;
  latencyMs: number;
  error: string;
  attemptedAt: Date;
}

export interface DeliveryRecord {
  id: number;
  webhookId: number;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  /** Pending behind an earlier delivery of the same webhook and subject: not scheduled until that one finishes. */
  waiting: boolean;
  /** Attempts started. */
  attempts: number;
  nextAttemptAt: Date | null;
  /** Why a failed delivery ended without success (gave up, cancelled); '' otherwise. */
  failure: string;
  createdAt: Date;
  /** Every attempt with a result, newest first. */
  attemptLog: AttemptRecord[];
}

/** A delivery claimed for one attempt: everything the attempt needs, and the lease that lets it record the result. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  projectId: number;
  eventId: string;
  /** Its place in the per-subject order: finishing it lets the subject's next delivery go. */
  subject: string;
  /** This attempt's number, from 1. */
  attempt: number;
  leaseToken: string;
  url: string;
  /** Undefined when the stored secret cannot be opened (SECRET_ENCRYPTION_KEY is not the one it was sealed with). */
  secret: string | undefined;
  body: string;
  /** Since the delivery's first attempt, by the database's clock (no clock skew between replicas). */
  elapsedMs: number;
}

/** What to do with a delivery after an attempt. */
export type DeliveryOutcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; inMs: number }
  | { kind: 'give-up'; failure: string; disabledReason: string };

export interface DeliveryStore {
  /** Of these projects, the ones with at least one active webhook. */
  projectsWithWebhooks(projectIds: number[]): Promise<number[]>;
  /** Whether the event is stored already, and how many active webhooks of the project take its type. */
  ingestionPlan(
    eventId: string,
    projectId: number,
    type: string,
  ): Promise<{ stored: boolean; subscribers: number }>;
  /**
   * In one transaction: the event and one pending delivery per active webhook of its project subscribed to its
   * type. Nothing when the event is stored already (idempotent by event id) or nobody subscribes. Answers how
   * many deliveries it created.
   */
  ingest(event: StoredEvent): Promise<number>;
  /**
   * A new event for one webhook only (a ping), with its delivery: the delivery id; 'inactive' when the webhook is
   * not active; undefined when absent or in another project.
   */
  enqueueFor(
    projectId: number,
    webhookId: number,
    event: StoredEvent,
  ): Promise<number | 'inactive' | undefined>;
  /** A webhook's deliveries, newest first. */
  list(
    webhookId: number,
    offset: number,
    limit: number,
  ): Promise<{ deliveries: DeliveryRecord[]; total: number }>;
  /**
   * Up to `limit` of a webhook's deliveries with an id above `afterId`, oldest first (a keyset), whether more
   * follow, and the total of the webhook's deliveries, all as one snapshot saw them.
   */
  listAfter(
    webhookId: number,
    afterId: number,
    limit: number,
  ): Promise<{ deliveries: DeliveryRecord[]; total: number; more: boolean }>;
  find(webhookId: number, deliveryId: number): Promise<DeliveryRecord | undefined>;
  /**
   * A new pending delivery of the same event to the same webhook, as queued; 'inactive' / 'pending' when the
   * webhook is not active / the delivery is still being attempted; undefined when the delivery is not the webhook's.
   */
  redeliver(
    webhookId: number,
    deliveryId: number,
  ): Promise<DeliveryRecord | 'inactive' | 'pending' | undefined>;
  /**
   * Claims up to `limit` due deliveries for one attempt each, leased for `leaseMs`: pending, due, of an active
   * webhook, and the oldest pending one of its webhook and subject (the others wait). Replicas never claim the same
   * one at once (row locks, SKIP LOCKED); a claim whose lease ran out (its dispatcher died) is due again, and its
   * lost attempt is logged as interrupted.
   */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt and applies the outcome, if the claim still holds its lease (else only the attempt is
   * logged). A delivery that ends (success, or no retry) lets the next one of its subject go. A delivery cancelled
   * meanwhile stays failed; one whose webhook was deactivated meanwhile fails instead of retrying. Giving up also
   * disables the webhook with the reason and cancels its other pending deliveries, in the same transaction.
   */
  finish(claim: ClaimedDelivery, result: AttemptResult, outcome: DeliveryOutcome): Promise<void>;
  /** Deletes events (with their deliveries) received more than `days` ago that have nothing pending. */
  sweep(days: number): Promise<number>;
}

/**
 * Turns a change event's `resource` into the payload's `data`, as the API shows the resource. Rendered once, at
 * ingestion; a failure is retried with the Kafka message (nothing is stored until it succeeds).
 */
export interface PayloadRenderer {
  render(event: Envelope<ResourceChangedV1>): Promise<RenderedChange>;
}

/** What a payload shows around the event's identity: who, where, and the resource itself. */
export interface RenderedChange {
  /** `{id, name}` */
  project: object;
  /** The user who made the change as the API embeds users; `{id: 0}` for a system action. */
  actor: object;
  /** `{id}` of the story, for a change to one of its tasks, comments, tags or attachments. */
  story?: object;
  data: object;
}

/** Resolves a host name to its addresses (every family), in the resolver's order. */
export interface HostResolver {
  resolve(host: string): Promise<string[]>;
}

export interface OutgoingRequest {
  target: WebhookTarget;
  headers: Record<string, string>;
  body: string;
  /** Aborts the attempt (shutdown); the result is then not recorded. */
  signal: AbortSignal;
}

/**
 * One POST to a receiver, with the address policy applied at connect time. Never throws: every failure (refused
 * target, DNS, connection, TLS, timeout, non-2xx, redirect) is a result.
 */
export interface WebhookSender {
  send(request: OutgoingRequest): Promise<AttemptResult>;
}

/** The slice of the logger the use cases need. */
export interface UseCaseLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
