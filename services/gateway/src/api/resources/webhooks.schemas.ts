import { RESOURCE_EVENT_TYPES } from '@flowboard/events';
import {
  arrayOf,
  body,
  int,
  pageSchema,
  ref,
  resource,
  str,
  text,
  timestamp,
  TRIMMED,
  xmlArray,
  type ResourceSchemas,
  type Schema,
} from '../schema';

/** A project's webhooks and their deliveries (webhooks.routes.ts). */

const webhookProperties = {
  id: int(),
  url: str('The receiver (normalised).'),
  eventTypes: {
    type: 'array',
    xml: { wrapped: true },
    items: { type: 'string', xml: { name: 'eventType' } },
    description: 'The event types delivered; empty = every type.',
  },
  active: { type: 'boolean', description: 'false: nothing is sent.' },
  description: str('`""` when empty.'),
  disabledReason: str('Why the service disabled it (its deliveries failed for a day); only then.'),
  createTime: timestamp,
  updateTime: timestamp,
};
/** What the webhooks service takes for a receiver's URL (its DNS and address checks come on top). */
const webhookUrl: Schema = {
  type: 'string',
  maxLength: 2000,
  pattern: `^[${TRIMMED}]*[Hh][Tt][Tt][Pp][Ss]?://[^${TRIMMED}/?#@]`,
  description:
    'An http(s) URL without credentials, at most 2,000 characters, whose host resolves to public addresses ' +
    '(private, loopback, link-local… are refused unless the operator allows them).',
};
const webhookEventTypes = xmlArray(
  { type: 'string', enum: [...RESOURCE_EVENT_TYPES] },
  'eventTypes',
  'eventType',
  'Event types to deliver; empty or absent: every type.',
);

export const webhookSchemas: ResourceSchemas = {
  responses: {
    Webhook: resource(
      'webhook',
      ['id', 'url', 'eventTypes', 'active', 'description', 'createTime', 'updateTime'],
      webhookProperties,
      {
        description: 'Flowboard addition: a project webhook. Its signing secret is shown only when created.',
      },
    ),
    CreatedWebhook: resource(
      'webhook',
      ['id', 'url', 'eventTypes', 'active', 'description', 'createTime', 'updateTime', 'secret'],
      {
        ...webhookProperties,
        secret: {
          type: 'string',
          pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
          description:
            'The signing secret (Standard Webhooks): `whsec_` + base64 of the HMAC-SHA256 key. Shown only here.',
        },
      },
      { description: 'Flowboard addition: the webhook just created, with its signing secret.' },
    ),
    Delivery: resource(
      'delivery',
      ['id', 'eventId', 'eventType', 'attempt', 'status', 'createTime', 'attempts'],
      {
        id: int(),
        eventId: str('The event id, sent as `webhook-id`: the same on every attempt and redelivery.'),
        eventType: str('`story.created`, … or `webhook.ping`.'),
        attempt: int('Attempts made so far (0 before the first).'),
        status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
        responseStatusCode: int("The latest attempt's HTTP status; omitted when no response came back."),
        latencyMs: int("The latest attempt's duration; omitted before the first attempt."),
        error: str('Why the latest attempt (or the delivery) failed; omitted otherwise.'),
        attemptedAt: { ...timestamp, description: 'The latest attempt; omitted before the first.' },
        nextAttemptAt: {
          ...timestamp,
          description:
            'When the next attempt is due; only while one is scheduled (pending, not queued behind another).',
        },
        createTime: timestamp,
        attempts: arrayOf(ref('DeliveryAttempt'), 'Every attempt, newest first.'),
      },
      { description: 'Flowboard addition: one event sent to one webhook, with its attempts.' },
    ),
    DeliveryAttempt: resource('attempt', ['attempt', 'status', 'latencyMs', 'attemptedAt'], {
      attempt: int('From 1.'),
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      responseStatusCode: int('Omitted when no response came back.'),
      latencyMs: int(),
      error: str('Omitted after a success.'),
      attemptedAt: timestamp,
    }),
    DeliveryReference: resource(
      'delivery',
      ['id'],
      { id: int() },
      { description: "The queued delivery's id (see it in the webhook's deliveries)." },
    ),
  },
  pages: {
    WebhookPage: pageSchema('Webhook', 'webhooks'),
    // Deliveries carry their attempts, and the webhooks service pages them by 100.
    DeliveryPage: pageSchema('Delivery', 'deliveries', 100),
  },
  requests: {
    WebhookCreate: body(
      'webhook',
      {
        url: webhookUrl,
        eventTypes: webhookEventTypes,
        active: { type: 'boolean', description: 'Default true.' },
        description: text(500),
      },
      ['url'],
    ),
    WebhookUpdate: body('webhook', {
      url: webhookUrl,
      eventTypes: webhookEventTypes,
      active: { type: 'boolean', description: '`true` again clears `disabledReason`.' },
      description: text(500),
    }),
  },
};
