import type { webhooks } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import { deliveryDto, webhookDto } from '@flowboard/representation';
import { keysetOf, keysetPageDto, pageOf } from '../../wire/page';
import type { Fields } from '../../wire/body';
import type { Call } from '../call';
import { invalidField, optionalBoolean, optionalString, requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { rejectWhere } from './no-filter';
import { del, get, post, put, resourceOperations } from '../operation';
import { P } from './paths';

/**
 * The most deliveries one page holds: each carries its attempts, and the webhooks service answers at most this
 * many. A larger `pageSize` is clamped to it (and echoed), as any list clamps to 1000 (docs/compat.md §4.1).
 */
export const MAX_DELIVERY_PAGE_SIZE = 100;

/** No enrichments: `with=everything` is accepted, any name is 400. */
const noEnrichments = (call: Call) => call.enrichments({ names: [] });

/** Lists: no enrichments, and no filter properties either (as invites, docs/compat.md §4.2). */
function plainList(call: Call): void {
  noEnrichments(call);
  rejectWhere(call);
}

/** The fields a webhook body sets; absent (or null) ones are left out, so a PUT changes only what it names. */
export interface WebhookFields {
  url?: string;
  eventTypes?: string[];
  active?: boolean;
  description?: string;
}

/**
 * Reads `{url, eventTypes, active, description}` (JSON, or XML with `<eventTypes><eventType>…` items). Only the
 * shapes are checked here: which URLs may be reached and which event types exist are the webhooks service's rules
 * (400 from there, naming the URL's problem or the known types).
 */
export function webhookFields(fields: Fields, { urlRequired }: { urlRequired: boolean }): WebhookFields {
  const url = urlRequired ? requiredString(fields, 'url') : optionalString(fields, 'url');
  const eventTypes = optionalEventTypes(fields);
  const active = optionalBoolean(fields, 'active');
  const description = optionalString(fields, 'description');
  return {
    ...(url === undefined ? {} : { url }),
    ...(eventTypes === undefined ? {} : { eventTypes }),
    ...(active === undefined ? {} : { active }),
    ...(description === undefined ? {} : { description }),
  };
}

/** An array of event type names, as sent (the service knows the names); `[]` = every type. */
function optionalEventTypes(fields: Fields): string[] | undefined {
  const value = fields.eventTypes;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((type) => typeof type === 'string'))
    throw invalidField("Field 'eventTypes' must be an array of event type names.");
  return value as string[];
}

/** UpdateWebhook's update_mask: the proto's name of each field the body sets. */
const MASK_NAMES: Record<keyof WebhookFields, string> = {
  url: 'url',
  eventTypes: 'event_types',
  active: 'active',
  description: 'description',
};

export function updateMask(changes: WebhookFields): string[] {
  return (Object.keys(changes) as Array<keyof WebhookFields>).map((name) => MASK_NAMES[name]);
}

/**
 * `P/webhooks...` (a flowboard addition): a project's webhooks and their delivery log, in the webhooks service.
 * Admin only, as managing roles is: a webhook sends the project's changes wherever its URL points.
 */
export function webhookHandlers({ webhooks }: RouteDeps) {
  const webhookReply = (webhook: webhooks.Webhook__Output | null, secret?: string) => {
    if (!webhook) throw new DomainError('Internal', 'webhooks returned no webhook');
    return resource('webhook', webhookDto(webhook, secret));
  };
  const target = (call: Call) => ({ project_id: call.project.projectId, webhook_id: call.id('webhookId') });

  return {
    /** Id order; the service answers them all (at most its per-project limit), paged here. */
    async list(call: Call): Promise<Reply> {
      plainList(call);
      const paging = call.paging();
      const { webhooks: list } = await webhooks.listWebhooks({ project_id: call.project.projectId });
      // Not `map(webhookDto)`: its second parameter is the secret.
      const items = list.map((webhook) => webhookDto(webhook));
      return page('webhook', pageOf(items, paging));
    },

    /** Answers the webhook with its signing secret: the only time the secret is shown. */
    async create(call: Call): Promise<Reply> {
      const body = webhookFields((await call.body()).object(), { urlRequired: true });
      noEnrichments(call);
      const { webhook, secret } = await webhooks.createWebhook({
        project_id: call.project.projectId,
        url: body.url ?? '',
        event_types: body.eventTypes ?? [],
        active: body.active ?? true,
        description: body.description ?? '',
      });
      return webhookReply(webhook, secret);
    },

    async get(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { webhook } = await webhooks.getWebhook(target(call));
      return webhookReply(webhook);
    },

    /**
     * Any subset of the create's fields; only those present change (the update mask). Deactivating cancels the
     * webhook's pending deliveries; re-activating clears `disabledReason` (the service's rules).
     */
    async update(call: Call): Promise<Reply> {
      const changes = webhookFields((await call.body()).object(), { urlRequired: false });
      noEnrichments(call);
      const mask = updateMask(changes);
      // Nothing to change: no write (the service would still touch updateTime).
      if (mask.length === 0) return webhookReply((await webhooks.getWebhook(target(call))).webhook);
      const { webhook } = await webhooks.updateWebhook({
        ...target(call),
        update_mask: mask,
        url: changes.url ?? '',
        event_types: changes.eventTypes ?? [],
        active: changes.active ?? false,
        description: changes.description ?? '',
      });
      return webhookReply(webhook);
    },

    async delete(call: Call): Promise<Reply> {
      await webhooks.deleteWebhook(target(call));
      return empty();
    },

    /**
     * Newest first, or by cursor in id order (oldest first); the service pages (each delivery carries its
     * attempts), at most 100 a page.
     */
    async listDeliveries(call: Call): Promise<Reply> {
      plainList(call);
      const paging = call.paging();
      const clamped = { ...paging, pageSize: Math.min(paging.pageSize, MAX_DELIVERY_PAGE_SIZE) };
      const { deliveries, total_items, keyset } = await webhooks.listDeliveries({
        ...target(call),
        page: clamped.page,
        page_size: clamped.pageSize,
        ...keysetOf(clamped),
      });
      const dtos = deliveries.map(deliveryDto);
      return page('delivery', keysetPageDto(dtos, clamped, total_items, keyset, 'webhooks'));
    },

    /** A new delivery of the same event (same `webhook-id` and body); the webhook must be active. */
    async redeliver(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { delivery } = await webhooks.redeliverDelivery({
        ...target(call),
        delivery_id: call.id('deliveryId'),
      });
      if (!delivery) throw new DomainError('Internal', 'RedeliverDelivery returned no delivery');
      return resource('delivery', deliveryDto(delivery));
    },

    /** Queues a `webhook.ping` event for this webhook; answers its delivery's id (see it in the log). */
    async ping(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { delivery_id } = await webhooks.pingWebhook(target(call));
      return resource('delivery', { id: delivery_id });
    },
  };
}

const W = `${P}/webhooks/:webhookId`;

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const webhookOperations = resourceOperations('Webhooks', 'administration', webhookHandlers, [
  get(`${P}/webhooks`, 'listWebhooks', 'List webhooks', {
    cursor: true,
    access: 'Admin',
    ok: { page: 'Webhook' },
    addition: true,
    handler: 'list',
  }),
  post(`${P}/webhooks`, 'createWebhook', 'Create a webhook', {
    access: 'Admin',
    body: 'WebhookCreate',
    ok: { one: 'CreatedWebhook' },
    addition: true,
    description:
      "The project's changes of the chosen types are POSTed to `url`, signed (Standard Webhooks headers " +
      '`webhook-id`, `webhook-timestamp`, `webhook-signature`). Answers the webhook with its signing `secret`, ' +
      'shown only here. The URL must be http(s) and reach a public address, and a project has a limited number ' +
      'of webhooks (20 unless configured otherwise): else 400.',
    handler: 'create',
  }),
  get(W, 'getWebhook', 'Get a webhook', {
    access: 'Admin',
    ok: { one: 'Webhook' },
    addition: true,
    handler: 'get',
  }),
  put(W, 'updateWebhook', 'Update a webhook', {
    access: 'Admin',
    body: 'WebhookUpdate',
    ok: { one: 'Webhook' },
    addition: true,
    description:
      'Changes only the fields sent. `active: false` cancels the pending deliveries (they can be redelivered ' +
      'later); `active: true` clears `disabledReason`.',
    handler: 'update',
  }),
  del(W, 'deleteWebhook', 'Delete a webhook', {
    access: 'Admin',
    ok: 'empty',
    addition: true,
    description: 'With its delivery log; nothing more is sent.',
    handler: 'delete',
  }),
  get(`${W}/deliveries`, 'listWebhookDeliveries', "List a webhook's deliveries", {
    cursor: true,
    access: 'Admin',
    ok: { page: 'Delivery' },
    addition: true,
    description:
      `Newest first, each with its attempts (newest first); by cursor (\`cursor=\`), in id order (oldest first). ` +
      `At most ${MAX_DELIVERY_PAGE_SIZE} a page: a larger \`pageSize\` is clamped to it.`,
    handler: 'listDeliveries',
  }),
  post(`${W}/deliveries/:deliveryId/redeliver`, 'redeliverWebhookDelivery', 'Redeliver a delivery', {
    access: 'Admin',
    ok: { one: 'Delivery' },
    addition: true,
    description:
      'Queues a new delivery of the same event (same `webhook-id` and body) and answers it. 400 while the ' +
      'webhook is inactive or the delivery is still pending.',
    handler: 'redeliver',
  }),
  post(`${W}/ping`, 'pingWebhook', 'Ping a webhook', {
    access: 'Admin',
    ok: { one: 'DeliveryReference' },
    addition: true,
    description:
      'Queues a `webhook.ping` event for this webhook, delivered like any other; answers its delivery id. 400 ' +
      'while the webhook is inactive.',
    handler: 'ping',
  }),
]);
